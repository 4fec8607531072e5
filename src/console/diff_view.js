// @ts-check
// A diff as the console shows it: a save's conflict (diffView), and the review page's, line by line
// with the submitted version's line numbers and room under each line for its comments
// (lineDiffView).

import {diff, diffRows, LIMITS, textRows} from './diff.js';
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

/**
 * The review page's diff: `element` to show; `slot(line)` the list under a line of the submitted
 * text for its comments (made on first use, the line unfolded), null for a line not shown;
 * `mark(line)` shows a line as the one being commented on (null: none).
 * @typedef {{element: HTMLElement, slot: (line: number) => HTMLElement | null,
 *   mark: (line: number | null) => void}} LineDiff
 */

// The diff of the approved text `before` to the submitted `after` as rows, each line of `after`
// with its number; the text whole when there is nothing to compare it with (`before` null: a first
// review), when it is unchanged, or when the diff exceeds its budget (diff.js LIMITS). Unchanged
// stretches are folded as diffView folds them; a fold opens on a click, and around a line whose
// comments are shown. With `onPick`, a line number is a button that picks its line.
/**
 * @param {string | null} before
 * @param {string} after
 * @param {string} labelKey
 * @param {Record<string, string | number>} vars
 * @param {{onPick?: (line: number) => void}} [options]
 * @returns {LineDiff}
 */
export function lineDiffView(before, after, labelKey, vars, {onPick} = {}) {
  /** @type {HTMLElement | null} */
  let note = null;
  let rows = textRows(after);
  let folding = false;
  if (before !== null) {
    const result = diff(before, after);
    if (!result.complete) {
      note = h('p', {class: 'note'}, t('diff.tooLarge', {lines: LIMITS.lineEdits}));
    } else if (result.parts.every((part) => part.op === '=')) {
      note = h('p', {class: 'meta'}, t('diff.same'));
    } else {
      rows = diffRows(result.parts);
      folding = true;
    }
  }
  const box = h('div', {
    class: 'diff lines',
    testid: 'diff',
    tabindex: 0,
    role: 'region',
    'aria-label': t(labelKey, vars)
  });
  /** @type {Map<number, number>} line -> row index */
  const indexOf = new Map();
  rows.forEach((row, i) => {
    if (row.line !== null) indexOf.set(row.line, i);
  });
  let tabStop = 0;  // line-number buttons made so far: the first is in the tab order
  /** @type {Map<number, HTMLElement>} row index -> its element, once drawn */
  const drawn = new Map();
  /** @type {{start: number, end: number, node: HTMLElement}[]} */
  const folds = [];

  /** @param {number} i */
  const rowNode = (i) => {
    const row = rows[i];
    const number = row.line === null ? h('span', {class: 'ln'}) :
        onPick                       ? h('button', {
                                type: 'button',
                                class: 'ln',
                                // One line number in the tab order (the arrow keys move between them), not thousands.
                                tabindex: tabStop++ === 0 ? 0 : -1,
                                'aria-label': t('comment.lineButton', {line: row.line}),
                                'aria-pressed': 'false',
                                onclick: () => onPick(/** @type {number} */ (row.line)),
        },
                                         String(row.line)) :
                                       h('span', {class: 'ln'}, String(row.line));
    const added = row.parts.length > 0 && row.parts.every((part) => part.op === '+');
    const node =
        h('div', {
          class: 'row' + (row.changed ? ' changed' : '') + (row.line === null ? ' removed' : '') +
              (added ? ' added' : ''),
          'data-line': row.line,
        },
          h('div', {class: 'code'}, number,
            h('span', {class: 'src'},
              row.parts.map(
                  (part) => part.op === '+' ? h('ins', {}, part.text) :
                      part.op === '-'       ? h('del', {}, part.text) :
                                              part.text))));
    drawn.set(i, node);
    return node;
  };
  /**
   * Rows start..end-1: drawn, or folded behind a button when there are two or more.
   * @param {number} start
   * @param {number} end
   * @returns {HTMLElement[]}
   */
  const foldOrRows = (start, end) => {
    if (end - start >= 2) {
      const fold = {
        start,
        end,
        node:
            h('button', {type: 'button', class: 'skipped'}, t('diff.skipped', {lines: end - start}))
      };
      fold.node.addEventListener('click', () => open(fold, start, end));
      folds.push(fold);
      return [fold.node];
    }
    return end > start ? [rowNode(start)] : [];
  };
  // Replaces `fold` by rows from..to-1, and what is left of it on either side folded again.
  /**
   * @param {{start: number, end: number, node: HTMLElement}} fold
   * @param {number} from
   * @param {number} to
   */
  const open = (fold, from, to) => {
    folds.splice(folds.indexOf(fold), 1);
    const nodes = foldOrRows(fold.start, from);
    for (let i = from; i < to; i++) nodes.push(rowNode(i));
    nodes.push(...foldOrRows(to, fold.end));
    fold.node.replaceWith(...nodes);
  };

  // The arrow keys move from line number to line number; the one focused last is the one Tab
  // comes back to.
  box.addEventListener('keydown', (event) => {
    const from = /** @type {HTMLElement} */ (event.target);
    if (!from.matches('button.ln') || (event.key !== 'ArrowDown' && event.key !== 'ArrowUp'))
      return;
    const numbers = [...box.querySelectorAll('button.ln')];
    const to = numbers[numbers.indexOf(from) + (event.key === 'ArrowDown' ? 1 : -1)];
    if (!(to instanceof HTMLElement)) return;
    event.preventDefault();
    to.focus();
  });
  box.addEventListener('focusin', (event) => {
    const to = /** @type {HTMLElement} */ (event.target);
    if (!to.matches('button.ln')) return;
    for (const number of box.querySelectorAll('button.ln[tabindex="0"]')) {
      if (number !== to) number.setAttribute('tabindex', '-1');
    }
    to.setAttribute('tabindex', '0');
  });

  if (folding) {
    for (let i = 0; i < rows.length;) {
      if (rows[i].changed) {
        box.append(rowNode(i++));
        continue;
      }
      let end = i;
      while (end < rows.length && !rows[end].changed) end++;
      const keepBefore = i === 0 ? 0 : CONTEXT_LINES;
      const keepAfter = end === rows.length ? 0 : CONTEXT_LINES;
      if (end - i <= keepBefore + keepAfter + 1) {
        for (let j = i; j < end; j++) box.append(rowNode(j));
      } else {
        for (let j = i; j < i + keepBefore; j++) box.append(rowNode(j));
        box.append(...foldOrRows(i + keepBefore, end - keepAfter));
        for (let j = end - keepAfter; j < end; j++) box.append(rowNode(j));
      }
      i = end;
    }
  } else {
    rows.forEach((_, i) => box.append(rowNode(i)));
  }

  /**
   * The element of a line of the submitted text, its fold opened around it; null for none.
   * @param {number} line
   */
  const rowOf = (line) => {
    const i = indexOf.get(line);
    if (i === undefined) return null;
    if (!drawn.has(i)) {
      const fold = folds.find((f) => f.start <= i && i < f.end);
      if (fold) {
        open(
            fold, Math.max(fold.start, i - CONTEXT_LINES),
            Math.min(fold.end, i + CONTEXT_LINES + 1));
      }
    }
    return drawn.get(i) ?? null;
  };
  /** @type {HTMLElement | null} */
  let marked = null;
  return {
    element: note ? h('div', {}, note, box) : box,
    slot: (line) => {
      const row = rowOf(line);
      if (!row) return null;
      let list = /** @type {HTMLElement | null} */ (row.querySelector(':scope > .line-comments'));
      if (!list) {
        list = h('ul', {class: 'line-comments'});
        row.append(list);
      }
      return list;
    },
    mark: (line) => {
      if (marked) {
        marked.classList.remove('selected');
        marked.querySelector('button.ln')?.setAttribute('aria-pressed', 'false');
      }
      marked = line === null ? null : rowOf(line);
      if (marked) {
        marked.classList.add('selected');
        marked.querySelector('button.ln')?.setAttribute('aria-pressed', 'true');
      }
    },
  };
}
