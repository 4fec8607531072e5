// @ts-check
// A review's comments on its page: each beside the diff line it is on (or under the diff), and a
// box that writes one, on a line picked in the diff or on the whole; refreshed while pending.

import {newIdempotencyKey} from './api.js';
import {actionButton, errorText, field, h, message, person, textWith, waitingText} from './dom.js';
import {api, formatTime, t} from './state.js';
import {renderReview} from './view_review.js';

/**
 * @typedef {import('./api.js').ApiReview} ApiReview
 * @typedef {import('./api.js').ApiComment} ApiComment
 * @typedef {import('./api.js').Intent} Intent
 * @typedef {import('./diff_view.js').LineDiff} LineDiff
 * @typedef {import('./review_assignees.js').Assignee} Assignee
 */
/**
 * What a request's caller may catch: an ApiError, as a rule.
 * @typedef {Partial<import('./api.js').ApiError>} Failure
 */
/**
 * An answer whose body is a T.
 * @template T
 * @typedef {import('./api.js').ApiAnswer & {body: T}} Answer
 */

/**
 * Every comment of a review, oldest first (the list is paged: all its pages).
 * @param {string} reviewId
 * @returns {Promise<ApiComment[]>}
 */
export async function loadComments(reviewId) {
  return /** @type {ApiComment[]} */ (await api.getAll(`api/v1/reviews/${reviewId}/comments`));
}


// The comments of a review: each beside the line of the diff it refers to (under that line, its
// answers after it), the others in a list under the diff; and, while the review is pending, a box
// to add one, on the whole document or on the line whose number was clicked. `pick` is the diff's
// line-number action, `attach` gives it the diff once drawn, `refresh` asks the comments again.
/**
 * @param {ApiReview} review
 * @param {ApiComment[] | Failure} loaded
 * @param {() => boolean} stale
 * @param {boolean} hasDiff whether the page shows the diff (its lines can be picked)
 * @returns {{nodes: HTMLElement[], pick: (line: number | null) => void,
 *   attach: (lines: LineDiff) => void, refresh: () => Promise<void>}}
 */
export function commentsPanel(review, loaded, stale, hasDiff) {
  const open = review.status === 'pending';
  /** @type {ApiComment[]} */
  let comments = Array.isArray(loaded) ? loaded : [];
  /** @type {LineDiff | null} */
  let lines = null;
  /** @type {HTMLElement[]} the lists under diff lines, filled by the last draw */
  let slots = [];
  const general = h('ul', {class: 'comments'});
  const none = h('p', {class: 'meta'}, t('comments.none'));
  const failure = h('p', {class: 'note', role: 'status'});
  failure.hidden = true;
  /** @param {unknown} error */
  const failed = (error) => {
    failure.textContent = t('comments.loadFailed', {detail: errorText(error)});
    failure.hidden = false;
  };
  if (!Array.isArray(loaded)) failed(loaded);

  const draw = () => {
    for (const slot of slots) slot.remove();
    slots = [];
    general.replaceChildren();
    const byId = new Map(comments.map((comment) => [comment.id, comment]));
    /** @param {ApiComment} comment */
    const rootOf = (comment) => {
      let root = comment;
      for (let depth = 0; root.parent_id && byId.has(root.parent_id) && depth < comments.length;
           depth++) {
        root = /** @type {ApiComment} */ (byId.get(root.parent_id));
      }
      return root;
    };
    /** @type {Map<string, ApiComment[]>} root id -> the thread, oldest first */
    const threads = new Map();
    for (const comment of comments) {
      const root = rootOf(comment);
      const thread = threads.get(root.id) ?? [];
      thread.push(comment);
      threads.set(root.id, thread);
    }
    for (const [rootId, thread] of threads) {
      const root = /** @type {ApiComment} */ (byId.get(rootId));
      const line = typeof root.line === 'number' ? root.line : null;
      const slot = line !== null && lines ? lines.slot(line) : null;
      if (slot && !slots.includes(slot)) slots.push(slot);
      for (const comment of [root, ...thread.filter((c) => c !== root)]) {
        (slot ?? general)
            .append(commentItem(comment, comment !== root, slot === null ? line : null));
      }
    }
    none.hidden = general.childElementCount > 0;
  };

  const refresh = async () => {
    try {
      const next = await loadComments(review.id);
      if (stale()) return;
      failure.hidden = true;
      if (JSON.stringify(next) !== JSON.stringify(comments)) {
        comments = next;
        draw();
      }
    } catch (error) {
      if (!stale()) failed(error);
    }
  };

  /** @type {HTMLElement[]} */
  const nodes = [h('h2', {}, t('review.comments')), failure, general, none];
  /** @type {number | null} */
  let picked = null;
  const target = h('span', {class: 'target'}, t('comment.wholeDocument'));
  const clear = h('button', {type: 'button', class: 'secondary small'}, t('comment.clearLine'));
  clear.hidden = true;
  const body = h('textarea', {testid: 'comment-body', class: 'short', rows: 3, maxlength: 4000});
  /** @param {number | null} line */
  const pick = (line) => {
    picked = line;
    lines?.mark(line);
    target.textContent = line === null ? t('comment.wholeDocument') : t('comment.onLine', {line});
    clear.hidden = line === null;
    if (line !== null) body.focus();
  };
  clear.addEventListener('click', () => {
    pick(null);
    body.focus();
  });

  if (open) {
    /** @type {Intent | null} */
    let intent = null;  // one key per comment, reused by its retries and by a click repeating it
    const add = actionButton('action.comment', 'comment-add', async () => {
      if (!body.value.trim()) {
        message(t('comment.needsBody'), 'error');
        body.focus();
        return;
      }
      const payload = picked === null ? {body: body.value} : {body: body.value, line: picked};
      if (!intent || JSON.stringify(intent.body) !== JSON.stringify(payload)) {
        intent = {
          method: 'POST',
          path: `api/v1/reviews/${review.id}/comments`,
          body: payload,
          key: newIdempotencyKey()
        };
      }
      try {
        message(t('working'), 'busy');
        const {body: made} = /** @type {Answer<ApiComment>} */ (
            await api.perform(intent, {onWait: (w) => message(waitingText(w), 'busy')}));
        intent = null;
        if (!comments.some((comment) => comment.id === made.id)) comments = [...comments, made];
        body.value = '';
        picked = null;
        lines?.mark(null);
        target.textContent = t('comment.wholeDocument');
        clear.hidden = true;
        draw();
        message(t('comment.done'), 'ok');
        await refresh();
      } catch (error) {
        message(errorText(error), 'error');
        if (/** @type {Failure} */ (error).code === 'INVALID_STATE') await renderReview(review.id);
      }
    });
    nodes.push(
        field('comment.label', body, hasDiff ? t('comment.hint') : null),
        h('p', {class: 'meta', 'aria-live': 'polite'}, target, ' ', clear),
        h('div', {class: 'actions'}, add));
  } else {
    nodes.push(h('p', {class: 'meta'}, t('comment.closed')));
  }
  draw();
  return {
    nodes,
    pick,
    attach: (diffLines) => {
      lines = diffLines;
      draw();
    },
    refresh,
  };
}

// One comment: who wrote it and when, the line it refers to when it is not shown beside it, and
// its text (user text: a text node, never markup).
/**
 * @param {ApiComment} comment
 * @param {boolean} reply
 * @param {number | null} line
 */
function commentItem(comment, reply, line) {
  return h(
      'li', {
        class: 'comment' + (reply ? ' reply' : ''),
        testid: 'comment-item',
        'data-comment-id': comment.id,
      },
      h('div', {class: 'meta'}, textWith('comment.by', {
          who: person(comment.author_id, comment.author_name),
          when: h('time', {datetime: comment.created_at}, formatTime(comment.created_at)),
        }),
        line !== null ? h('span', {class: 'tag'}, t('comment.line', {line})) : null),
      h('div', {class: 'comment-text'}, comment.body));
}
