// @ts-check
// The review queue: the pending reviews, oldest first, refreshed while it is shown; all of them,
// or the ones assigned to the user ("my queue", `assignee=me`), each with its document's title.

import {errorText, h, message, person, show, textWith} from './dom.js';
import {renderTicket, route} from './router.js';
import {myId} from './session.js';
import {api, formatTime, PAGE_SIZE, state, t} from './state.js';
import {pager} from './view_documents.js';

/**
 * @typedef {import('./api.js').ApiQueueItem} ApiQueueItem
 */
/**
 * @template T
 * @typedef {import('./api.js').ApiPage<T>} ApiPage
 */

const QUEUE_REFRESH_MS = 5000;


// Whether the queue's "only mine" box had the focus when it was changed: it gets it back once the
// queue is drawn again.
let focusMine = false;

/** @param {URLSearchParams} query */
export async function renderQueue(query) {
  const stale = renderTicket();
  const after = query.get('after');
  // "My queue": the reviews assigned to the user (`assignee=me`), remembered in the address.
  const mine = query.get('mine') === '1';
  // One request: each item carries its document's title (API.md v1.2).
  const load = async () => {
    const params = new URLSearchParams({status: 'pending', limit: String(PAGE_SIZE)});
    if (mine) params.set('assignee', 'me');
    if (after) params.set('after', after);
    return /** @type {ApiPage<ApiQueueItem>} */ (await api.get('api/v1/reviews?' + params));
  };
  const toggle = h('input', {
    type: 'checkbox',
    testid: 'my-queue',
    id: 'my-queue',
    checked: mine,
    onchange: () => {
      focusMine = true;
      history.pushState(null, '', '#/queue' + (toggle.checked ? '?mine=1' : ''));
      route();
    },
  });
  const filter = h('div', {class: 'filter'}, toggle, h('label', { for: 'my-queue'
                   }, t('queue.mine')));
  /** @type {(page: ApiPage<ApiQueueItem>) => void} */
  const draw = (page) => {
    const items = page.items.map(
        (review) =>
            h('li', {testid: 'queue-item'},
              h('a', {href: '#/reviews/' + review.id},
                review.title || t('queue.document', {id: review.document_id})),
              ' ', h('span', {class: 'meta'}, textWith('queue.meta', {
                       version: review.document_version,
                       who: person(review.submitted_by, review.submitted_by_name),
                       when: formatTime(review.submitted_at)
                     })),
              (review.assignees ?? []).includes(myId()) ?
                  h('span', {class: 'tag'}, t('queue.assignedToYou')) :
                  null));
    show(
        h('h1', {}, t('queue.title')),
        h('p', {class: 'meta'}, t('queue.refresh', {seconds: QUEUE_REFRESH_MS / 1000})), filter,
        items.length === 0 ? h('p', {}, t(mine ? 'queue.emptyMine' : 'queue.empty')) :
                             h('ol', {class: 'results'}, items),
        pager(after, page.next, mine ? '#/queue?mine=1&' : '#/queue?'));
    if (focusMine) {
      focusMine = false;
      toggle.focus();
    }
  };
  let shown = await load();
  if (stale()) return;
  draw(shown);
  // Refreshed as other reviewers decide; keeps the focus where it was when nothing moved.
  state.timers.push(setInterval(async () => {
    if (document.hidden || stale()) return;
    try {
      const next = await load();
      if (stale()) return;
      if (JSON.stringify(next) !== JSON.stringify(shown)) {
        focusMine = document.activeElement === toggle;
        shown = next;
        draw(next);
      }
    } catch (error) {
      if (!stale()) message(errorText(error), 'error');
    }
  }, QUEUE_REFRESH_MS));
}
