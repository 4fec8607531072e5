// @ts-check
// Search: keyword, semantic or hybrid as this docgate offers, the matches highlighted.

import {field, h, show} from './dom.js';
import {formatScore} from './i18n.js';
import {renderTicket} from './router.js';
import {api, state, t} from './state.js';

/** @typedef {import('./api.js').ApiSearchAnswer} SearchAnswer */

/** @returns {Promise<string[]>} */
async function searchModes() {
  if (state.searchModes) return state.searchModes;
  try {
    const ready = /** @type {{checks?: {embeddings?: string}}} */ (
        await fetch('readyz', {cache: 'no-store'}).then((r) => r.json()));
    state.searchModes = ready.checks?.embeddings && ready.checks.embeddings !== 'off' ?
        ['hybrid', 'keyword', 'semantic'] :
        ['keyword'];
  } catch (e) {
    state.searchModes = ['keyword'];
  }
  return state.searchModes;
}

/** @param {URLSearchParams} query */
export async function renderSearch(query) {
  const stale = renderTicket();
  const q = query.get('q') ?? '';
  const modes = await searchModes();
  // Included in modes, so not null.
  const mode = /** @type {string} */ (
      modes.includes(/** @type {string} */ (query.get('mode'))) ? query.get('mode') : modes[0]);
  const input = h('input', {type: 'search', testid: 'search-input', value: q});
  const modeSelect = modes.length > 1 ?
      h('select', {},
        modes.map((m) => h('option', {value: m, selected: m === mode}, t('mode.' + m)))) :
      null;
  const form =
      h('form', {
        role: 'search',
        onsubmit: (/** @type {SubmitEvent} */ e) => {
          e.preventDefault();
          const params = new URLSearchParams({q: input.value});
          if (modeSelect) params.set('mode', modeSelect.value);
          location.hash = '#/search?' + params;
        }
      },
        field('search.label', input), modeSelect ? field('search.mode', modeSelect) : null,
        h('div', {class: 'actions'}, h('button', {type: 'submit'}, t('action.search'))));
  const results = h('div', {'aria-live': 'polite'});
  show(h('h1', {}, t('search.title')), form, results);
  input.focus();
  if (!q.trim()) return;
  const params = new URLSearchParams({q, limit: '20'});
  if (modeSelect) params.set('mode', mode);
  const answer = /** @type {SearchAnswer} */ (await api.get('api/v1/search?' + params));
  if (stale()) return;
  results.replaceChildren(
      h('p', {class: 'meta'},
        t('search.count', {count: answer.items.length, mode: t('mode.' + answer.mode)})),
      h('ol', {class: 'results'},
        answer.items.map(
            (item) =>
                h('li', {testid: 'search-result'},
                  h('a', {href: '#/documents/' + item.document_id}, item.title),
                  h('span', {class: 'meta', title: String(item.score)}, ' ',
                    t('search.meta',
                      {version: item.version, score: formatScore(Number(item.score))})),
                  item.section ? h('div', {class: 'meta', testid: 'search-section'}, item.section) :
                                 null,
                  h('div', {}, highlighted(item.snippet, item.highlights ?? []))))));
}

// The snippet with its [start, end) ranges, in code points, wrapped in <mark>.
/**
 * @param {string} snippet
 * @param {readonly [number, number][]} ranges
 * @returns {(string | HTMLElement)[]}
 */
function highlighted(snippet, ranges) {
  const points = Array.from(snippet);
  /** @type {(string | HTMLElement)[]} */
  const out = [];
  let at = 0;
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (start < at || end <= start || end > points.length) continue;
    out.push(points.slice(at, start).join(''), h('mark', {}, points.slice(start, end).join('')));
    at = end;
  }
  out.push(points.slice(at).join(''));
  return out;
}
