// @ts-check
// A review's page: its votes, its assigned reviewers (review_assignees.js), its diff against the
// last approved version with the comments beside the lines they refer to (review_comments.js), and
// the decision (approve, reject). Every action runs once at a time, with an Idempotency-Key made
// once per intent (issue 38). The queue is view_queue.js.

import {newIdempotencyKey} from './api.js';
import {lineDiffView} from './diff_view.js';
import {actionButton, badge, confirmDialog, errorText, field, h, message, person, show, textWith, waitingText} from './dom.js';
import {renderedView} from './markdown.js';
import {assigneesSection, namedAssignees} from './review_assignees.js';
import {commentsPanel, loadComments} from './review_comments.js';
import {renderTicket} from './router.js';
import {isReviewer, myId} from './session.js';
import {api, formatTime, state, t} from './state.js';


/**
 * @typedef {import('./api.js').ApiDocument} ApiDocument
 * @typedef {import('./api.js').ApiReview} ApiReview
 * @typedef {import('./api.js').ApiPreview} ApiPreview
 * @typedef {import('./api.js').ApiVersion} ApiVersion
 * @typedef {import('./api.js').ApiVersionItem} ApiVersionItem
 * @typedef {import('./api.js').ApiComment} ApiComment
 * @typedef {import('./review_assignees.js').Assignee} Assignee
 * @typedef {import('./state.js').Claims} Claims
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

// A review's comments are asked again this often while it is open, so that one written in another
// browser appears beside its line.
const COMMENTS_REFRESH_MS = 5000;

/**
 * @param {string} docId
 * @param {number} version
 * @returns {Promise<string | null>}
 */
async function versionContent(docId, version) {
  try {
    return /** @type {ApiVersion} */ (
        await api.get(`api/v1/documents/${docId}/versions/${version}`)).content;
  } catch (error) {
    if (/** @type {Failure} */ (error).status === 404) return null;
    throw error;
  }
}

// Why the signed-in user may not decide this review (the four-eyes rule of API.md v1.1), or null.
/**
 * @param {ApiDocument} doc
 * @param {ApiReview} review
 * @param {ApiVersionItem[]} versions
 * @returns {string | null}
 */
function selfReviewReason(doc, review, versions) {
  if (doc.author_id === /** @type {Claims} */ (state.claims).sub) return t('self.author');
  const since = doc.approved_version ?? 0;
  const edited = versions.some(
      (v) => v.version > since && v.version <= review.document_version &&
          v.edited_by === /** @type {Claims} */ (state.claims).sub);
  return edited ? t('self.editor', {version: review.document_version}) : null;
}

/** @type {number | undefined} */
let commentsTimer;

/** @param {string} id */
export async function renderReview(id) {
  const stale = renderTicket();
  // A page drawn again after an action (not by a navigation, which clears every timer) stops the
  // refresh of the page it replaces.
  clearInterval(commentsTimer);
  const review = /** @type {ApiReview} */ (await api.get('api/v1/reviews/' + id));
  const [doc, versions, comments, assignees] =
      /** @type {[ApiDocument, ApiVersionItem[], ApiComment[] | Failure, Assignee[]]} */ (
          await Promise.all([
            api.get('api/v1/documents/' + review.document_id),
            api.getAll(`api/v1/documents/${review.document_id}/versions`),
            loadComments(review.id).catch((/** @type {Failure} */ error) => error),
            namedAssignees(review),
          ]));
  const submitted = await versionContent(doc.id, review.document_version);
  /** @type {string | null} */
  let approved = null;
  const baseVersion =
      doc.approved_version !== null && doc.approved_version < review.document_version ?
      doc.approved_version :
      null;
  if (baseVersion !== null) {
    approved = await versionContent(doc.id, baseVersion);
    if (approved === null) {
      const preview = /** @type {ApiPreview | null} */ (
          await api.get(`api/v1/documents/${doc.id}/preview`).catch(() => null));
      if (preview?.version === baseVersion) approved = preview.content;
    }
  }
  if (stale()) return;
  const panel = commentsPanel(review, comments, stale, submitted !== null);
  /** @type {(HTMLElement | null)[]} */
  const sections = [
    h('h1', {},
      t('review.title',
        {title: versions.find((v) => v.version === review.document_version)?.title ?? doc.title})),
    h('p', {class: 'meta'}, badge(review.status), ' ', textWith('review.meta', {
        id: review.id,
        version: review.document_version,
        author: person(doc.author_id, doc.author_name),
        who: person(review.submitted_by, review.submitted_by_name),
        when: formatTime(review.submitted_at)
      }),
      ' ', h('a', {href: '#/documents/' + doc.id}, t('review.openDocument'))),
  ];
  if (review.required_approvals > 1 || review.approvals.length > 1) {
    sections.push(approvalsLine(review));
  }
  sections.push(assigneesSection(review, doc, assignees));
  if (submitted === null) {
    sections.push(h('p', {class: 'note'}, t('review.pruned')));
  } else {
    // The first review (or one whose approved text is gone) shows the submitted text whole.
    const [labelKey, vars] = approved === null ? ['review.firstReview', {}] : [
      'review.diffTitle', {from: /** @type {number} */ (baseVersion), to: review.document_version}
    ];
    const lines = lineDiffView(
        approved, submitted, labelKey, vars,
        {onPick: review.status === 'pending' ? panel.pick : undefined});
    const diff = [h('h2', {}, t(labelKey, vars)), lines.element];
    if (doc.format === 'markdown') {
      // The diff stays a diff of the source; the version as it reads is shown beside it.
      const label = t('review.rendered', {version: review.document_version});
      sections.push(
          h('div', {class: 'side-by-side'}, h('div', {}, ...diff),
            h('div', {}, h('h2', {}, label), renderedView(submitted, label))));
    } else {
      sections.push(...diff);
    }
    panel.attach(lines);
  }
  sections.push(...panel.nodes);
  if (review.status !== 'pending') {
    sections.push(h('p', {class: 'note'}, decidedText(review)));
  } else if (isReviewer()) {
    sections.push(...decisionControls(review, doc, selfReviewReason(doc, review, versions)));
  }
  show(...sections);
  if (review.status === 'pending') {
    commentsTimer = setInterval(() => {
      if (!document.hidden && !stale()) panel.refresh();
    }, COMMENTS_REFRESH_MS);
    state.timers.push(commentsTimer);
  }
}

// "1 / 2 approvals: 李四" (the `vote-count` test id), each approver by name with their id on hover.
/** @param {ApiReview} review */
function approvalsLine(review) {
  const people = review.approvals.flatMap(
      (approval, i) =>
          [i === 0 ? '' : t('list.separator'),
           person(approval.reviewer_id, approval.reviewer_name),
  ]);
  return h(
      'p', {class: 'meta'},
      h('span', {testid: 'vote-count'},
        t('review.approvals',
          {count: review.approvals.length, required: review.required_approvals})),
      ...(people.length > 0 ? [t('review.approvedBy'), ...people] : []));
}

// Who decided and when (the person by name, their id on hover), then the comment (a rejection's
// reason) as a sentence of its own: the comment is the reviewer's text, which may end with its own
// punctuation.
/**
 * @param {ApiReview} review
 * @returns {(Node | string)[]}
 */
function decidedText(review) {
  const decided = textWith('review.decided', {
    status: t('status.' + review.status),
    who: review.decided_by ? person(review.decided_by, review.decided_by_name) :
                             person(review.submitted_by, review.submitted_by_name),
    when: formatTime(review.decided_at),
  });
  if (!review.comment) return decided;
  const label = review.status === 'rejected' ? 'review.decidedReason' : 'review.decidedComment';
  return [...decided, t('sentence.separator'), t(label, {comment: review.comment})];
}

/**
 * @param {ApiReview} review
 * @param {ApiDocument} doc
 * @param {string | null} blocked why the user may not decide, or null
 */
function decisionControls(review, doc, blocked) {
  const comment =
      h('textarea', {testid: 'comment-input', class: 'short', rows: 3, maxlength: 2000});
  const reason = h('textarea', {testid: 'reason-input', class: 'short', rows: 3, maxlength: 2000});
  const blockedNote =
      blocked ? h('p', {class: 'note', id: 'self-review-note', role: 'note'}, blocked) : null;
  /** @param {'approve' | 'reject'} verb */
  const decide = (verb) => actionButton('action.' + verb, verb, async () => {
    const body = verb === 'approve' ? (comment.value.trim() ? {comment: comment.value} : {}) :
                                      {reason: reason.value};
    if (verb === 'reject' && !reason.value.trim()) {
      message(t('reject.needsReason'), 'error');
      reason.focus();
      return;
    }
    const ok = await confirmDialog(
        'confirm.' + verb, {title: doc.title, version: review.document_version});
    if (!ok) return;
    const intent = {
      method: 'POST',
      path: `api/v1/reviews/${review.id}/${verb}`,
      body,
      key: newIdempotencyKey()
    };
    try {
      message(t('working'), 'busy');
      const {body: answer} = /** @type {Answer<{review: ApiReview}>} */ (
          await api.perform(intent, {onWait: (w) => message(waitingText(w), 'busy')}));
      // An approval below the quorum leaves the review pending: it says how many there are now.
      const now = answer?.review;
      message(
          verb === 'approve' && now?.status === 'pending' ?
              t('approve.recorded',
                {count: now.approvals.length, required: now.required_approvals}) :
              t(verb + '.done'),
          'ok');
      await renderReview(review.id);
    } catch (error) {
      if (/** @type {Failure} */ (error).code === 'ALREADY_VOTED') {
        message(errorText(error), 'error');
        await renderReview(review.id);
        return;
      }
      if (/** @type {Failure} */ (error).code === 'INVALID_STATE') {
        const now = /** @type {ApiReview} */ (await api.get('api/v1/reviews/' + review.id));
        // The message line is text: the decider by name (their id is on the page drawn next).
        const decided = h('span', {}, decidedText(now)).textContent ?? '';
        message(t('review.alreadyDecided', {state: decided}), 'error');
        await renderReview(review.id);
        return;
      }
      message(errorText(error), 'error');
    }
  }, verb === 'reject' ? 'danger' : '');
  const approve = decide('approve');
  const reject = decide('reject');
  if (blocked) {
    for (const button of [approve, reject]) {
      button.disabled = true;
      button.setAttribute('aria-describedby', 'self-review-note');
    }
  }
  // A reviewer approves a review once (409 ALREADY_VOTED): their approval is shown instead.
  const mine = review.approvals.find((approval) => approval.reviewer_id === myId());
  const votedNote = mine && !blocked ?
      h('p', {class: 'note', id: 'voted-note', role: 'note'},
        t('review.alreadyApproved', {when: formatTime(mine.decided_at)})) :
      null;
  if (votedNote) {
    approve.disabled = true;
    approve.setAttribute('aria-describedby', 'voted-note');
  }
  return [
    blockedNote,
    votedNote,
    h('h2', {}, t('review.decide')),
    field('field.comment', comment, t('field.commentHint')),
    h('div', {class: 'actions'}, approve),
    field('field.reason', reason, t('field.reasonHint')),
    h('div', {class: 'actions'}, reject),
  ];
}
