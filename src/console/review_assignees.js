// @ts-check
// A review's assigned reviewers on its page: each by name with a button that removes them, and a
// field that assigns one by user id (the document's author or an admin, while it is pending).

import {newIdempotencyKey} from './api.js';
import {actionButton, displayName, errorText, field, h, message, person, waitingText} from './dom.js';
import {hasRole, myId} from './session.js';
import {api, t, userName} from './state.js';
import {renderReview} from './view_review.js';

/**
 * @typedef {import('./api.js').ApiDocument} ApiDocument
 * @typedef {import('./api.js').ApiReview} ApiReview
 * @typedef {import('./api.js').Intent} Intent
 */
/**
 * An assigned reviewer: the id the review holds, the name docgate knows (null: shown by id).
 * @typedef {{id: string, name: string | null}} Assignee
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
 * @param {ApiReview} review
 * @returns {Promise<Assignee[]>}
 */
export function namedAssignees(review) {
  return Promise.all((review.assignees ?? []).map(async (id) => ({id, name: await userName(id)})));
}

// The reviewers assigned to a review, each by name with a button that removes them, and a field
// that adds one by user id: the controls only for the document's author or an admin while the
// review is pending (API.md v1.2). Drawn again in place from the Review each change answers, so
// that the rest of the page (a comment being written) stays as it is.
/**
 * @param {ApiReview} review
 * @param {ApiDocument} doc
 * @param {Assignee[]} assignees
 * @returns {HTMLElement | null} null for a decided review that had none
 */
export function assigneesSection(review, doc, assignees) {
  const manages = review.status === 'pending' && (doc.author_id === myId() || hasRole('admin'));
  if (assignees.length === 0 && review.status !== 'pending') return null;
  const section = h('section', {class: 'assignees', 'aria-labelledby': 'assignees-title'});
  const input = h('input', {
    type: 'text',
    testid: 'assignee-input',
    maxlength: 255,
    autocomplete: 'off',
    spellcheck: false,
  });
  /** @type {Intent | null} */
  let intent = null;  // one key per change, reused by its retries (and by a click that repeats it)
  /**
   * POST .../assignees with `body`; then the section drawn again from the answer.
   * @param {{add?: string[], remove?: string[]}} body
   * @param {(name: string) => string} done the message once done, given the person's name
   * @param {string} who the person's id
   */
  const change = async (body, done, who) => {
    if (!intent || JSON.stringify(intent.body) !== JSON.stringify(body)) {
      intent = {
        method: 'POST',
        path: `api/v1/reviews/${review.id}/assignees`,
        body,
        key: newIdempotencyKey()
      };
    }
    try {
      message(t('working'), 'busy');
      const {body: now} = /** @type {Answer<ApiReview>} */ (
          await api.perform(intent, {onWait: (w) => message(waitingText(w), 'busy')}));
      intent = null;
      const named = await namedAssignees(now);
      const next = assigneesSection(now, doc, named);
      if (next) {
        section.replaceWith(next);
      } else {
        section.remove();
      }
      const name = named.find((a) => a.id === who)?.name ?? (await userName(who));
      message(done(displayName(who, name)), 'ok');
      /** @type {HTMLElement | null} */ (next?.querySelector('[data-testid="assignee-input"]'))
          ?.focus();
    } catch (error) {
      message(errorText(error), 'error');
      if (/** @type {Failure} */ (error).code === 'INVALID_STATE') await renderReview(review.id);
    }
  };
  const add = actionButton('action.assign', 'assignee-add', async () => {
    const id = input.value.trim();
    if (!id) {
      message(t('assignee.needsId'), 'error');
      input.focus();
      return;
    }
    await change({add: [id]}, (name) => t('assignee.added', {name}), id);
  });
  /** @param {Assignee} assignee */
  const removeButton = (assignee) => {
    const button = actionButton(
        'action.unassign', 'assignee-remove',
        () => change({remove: [assignee.id]}, (name) => t('assignee.removed', {name}), assignee.id),
        'secondary small');
    button.setAttribute(
        'aria-label', t('assignee.remove', {name: displayName(assignee.id, assignee.name)}));
    return button;
  };
  const list = assignees.length === 0 ?
      h('p', {class: 'meta'}, t('review.assigneesNone')) :
      h('ul', {class: 'people'},
        assignees.map(
            (assignee) =>
                h('li', {testid: 'assignee-item'}, person(assignee.id, assignee.name),
                  manages ? removeButton(assignee) : null)));
  section.append(h('h2', {id: 'assignees-title'}, t('review.assignees')), list);
  if (manages) {
    section.append(
        h('form', {
          class: 'inline-form',
          onsubmit: (/** @type {SubmitEvent} */ e) => {
            e.preventDefault();
            add.click();
          }
        },
          field('assignee.label', input, t('assignee.hint')), h('div', {class: 'actions'}, add)));
  }
  return section;
}
