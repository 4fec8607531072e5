// @ts-check
// The reviewer's views: the queue (oldest first, refreshed; all of it, or the reviews assigned to
// the user) and a review: its votes, its assigned reviewers (the author or an admin adds and
// removes them), its diff against the last approved version with the comments beside the lines
// they refer to, a box to add one, and the decision (approve, reject). Every action runs once at a
// time, with an Idempotency-Key made once per intent (issue 38).

import {newIdempotencyKey} from './api.js';
import {lineDiffView} from './diff_view.js';
import {actionButton, badge, confirmDialog, displayName, errorText, field, h, message, person, show, textWith, waitingText} from './dom.js';
import {renderTicket, route} from './router.js';
import {hasRole, isReviewer} from './session.js';
import {api, formatTime, PAGE_SIZE, state, t, userName} from './state.js';
import {pager} from './view_documents.js';


/**
 * @typedef {import('./api.js').ApiDocument} ApiDocument
 * @typedef {import('./api.js').ApiReview} ApiReview
 * @typedef {import('./api.js').ApiQueueItem} ApiQueueItem
 * @typedef {import('./api.js').ApiPreview} ApiPreview
 * @typedef {import('./api.js').ApiVersion} ApiVersion
 * @typedef {import('./api.js').ApiVersionItem} ApiVersionItem
 * @typedef {import('./api.js').ApiComment} ApiComment
 * @typedef {import('./api.js').Intent} Intent
 * @typedef {import('./diff_view.js').LineDiff} LineDiff
 * @typedef {import('./state.js').Claims} Claims
 */
/**
 * What a request's caller may catch: an ApiError, as a rule.
 * @typedef {Partial<import('./api.js').ApiError>} Failure
 */
/**
 * @template T
 * @typedef {import('./api.js').ApiPage<T>} ApiPage
 */
/**
 * An answer whose body is a T.
 * @template T
 * @typedef {import('./api.js').ApiAnswer & {body: T}} Answer
 */

const QUEUE_REFRESH_MS = 5000;
// A review's comments are asked again this often while it is open, so that one written in another
// browser appears beside its line.
const COMMENTS_REFRESH_MS = 5000;

/** @returns {string} the signed-in user's id */
const myId = () => /** @type {Claims} */ (state.claims).sub;

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
    sections.push(h('h2', {}, t(labelKey, vars)), lines.element);
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

/**
 * Every comment of a review, oldest first (the list is paged: all its pages).
 * @param {string} reviewId
 * @returns {Promise<ApiComment[]>}
 */
async function loadComments(reviewId) {
  return /** @type {ApiComment[]} */ (await api.getAll(`api/v1/reviews/${reviewId}/comments`));
}

/**
 * An assigned reviewer: the id the review holds, the name docgate knows (null: shown by id).
 * @typedef {{id: string, name: string | null}} Assignee
 */

/**
 * @param {ApiReview} review
 * @returns {Promise<Assignee[]>}
 */
function namedAssignees(review) {
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
function assigneesSection(review, doc, assignees) {
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
function commentsPanel(review, loaded, stale, hasDiff) {
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
