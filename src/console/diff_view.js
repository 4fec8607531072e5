// @ts-check
// A diff as the console shows it (the review page, a save's conflict).

import {diff, LIMITS} from './diff.js';
import {h} from './dom.js';
import {t} from './state.js';

const CONTEXT_LINES = 3;

// The diff of `before` to `after`, unchanged stretches folded to CONTEXT_LINES lines around each
// change; the full text of `after` when the diff exceeds its budget (diff.js LIMITS).
/**
 * @param {string} before
 * @param {string} after
 * @param {string} labelKey
 * @param {Record<string, string | number>} [vars]
 * @returns {HTMLDivElement}
 */
export function diffView(before, after, labelKey, vars = {}) {
  const result = diff(before, after);
  const box = h('div', {
    class: 'diff',
    testid: 'diff',
    tabindex: 0,
    role: 'region',
    'aria-label': t(labelKey, vars)
  });
  if (!result.complete) {
    box.append(after);
    return h(
        'div', {}, h('p', {class: 'note'}, t('diff.tooLarge', {lines: LIMITS.lineEdits})), box);
  }
  if (result.parts.every((part) => part.op === '=')) {
    return h('div', {}, h('p', {class: 'meta'}, t('diff.same')), box);
  }
  result.parts.forEach((part, i) => {
    if (part.op === '+')
      box.append(h('ins', {}, part.text));
    else if (part.op === '-')
      box.append(h('del', {}, part.text));
    else
      box.append(...folded(part.text, i === 0, i === result.parts.length - 1));
  });
  return box;
}

/**
 * @param {string} text
 * @param {boolean} first
 * @param {boolean} last
 * @returns {(string | HTMLSpanElement)[]}
 */
function folded(text, first, last) {
  const lines = text.split(/(?<=\n)/);
  const keepBefore = first ? 0 : CONTEXT_LINES;
  const keepAfter = last ? 0 : CONTEXT_LINES;
  if (lines.length <= keepBefore + keepAfter + 1) return [text];
  const hidden = lines.length - keepBefore - keepAfter;
  return [
    lines.slice(0, keepBefore).join(''),
    h('span', {class: 'skipped'}, t('diff.skipped', {lines: hidden})),
    lines.slice(lines.length - keepAfter).join('')
  ];
}
