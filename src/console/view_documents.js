// @ts-check
// The author's views: the document list, a new document, a document with its editor (a save with
// If-Match, a 412 shown as a diff), submit and withdraw, the review history and the preview.

import {newIdempotencyKey} from './api.js';
import {diffView} from './diff_view.js';
import {actionButton, badge, errorText, field, h, message, person, show, textWith, waitingText} from './dom.js';
import {renderedView, showRendered} from './markdown.js';
import {renderTicket, route} from './router.js';
import {isAuthor, isReviewer} from './session.js';
import {api, formatTime, PAGE_SIZE, state, t} from './state.js';

/**
 * @typedef {import('./api.js').ApiDocument} ApiDocument
 * @typedef {import('./api.js').ApiReview} ApiReview
 * @typedef {import('./api.js').ApiContent} ApiContent
 * @typedef {import('./api.js').ApiPreview} ApiPreview
 * @typedef {import('./api.js').Intent} Intent
 * @typedef {import('./state.js').Claims} Claims
 */
/**
 * What a request's caller may catch: an ApiError, as a rule.
 * @typedef {Partial<import('./api.js').ApiError>} Failure
 */
/**
 * The version an editor's text is based on (a save's If-Match) and its title, content and format.
 * @typedef {{version: number, title: string, content: string, format: DocumentFormat}} Base
 * @typedef {import('./api.js').DocumentFormat} DocumentFormat
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

/** @param {URLSearchParams} query */
export async function renderDocuments(query) {
  const stale = renderTicket();
  const after = query.get('after');
  const params = new URLSearchParams({limit: String(PAGE_SIZE)});
  const mine = isAuthor() && query.get('all') !== '1';
  if (mine) params.set('author_id', /** @type {Claims} */ (state.claims).sub);
  if (after) params.set('after', after);
  const page = /** @type {ApiPage<ApiDocument>} */ (await api.get('api/v1/documents?' + params));
  if (stale()) return;
  const rows = page.items.map(
      (doc) =>
          h('tr', {testid: 'document-row'},
            h('td', {}, h('a', {href: '#/documents/' + doc.id}, doc.title)),
            h('td', {}, badge(doc.status, 'status-badge')), h('td', {}, String(doc.version)),
            h('td', {}, doc.approved_version === null ? '' : badge(doc.ingest_status)),
            h('td', {class: 'meta'}, formatTime(doc.updated_at))));
  const base = '#/documents?' + (mine ? '' : 'all=1&');
  show(
      h('h1', {}, t(mine ? 'documents.mine' : 'documents.all')),
      h('div', {class: 'actions'},
        isAuthor() ? h('a', {class: 'button', href: '#/documents/new', testid: 'new-document'},
                       t('action.new')) :
                     null,
        isAuthor() ? importControl() : null,
        isAuthor() ? h('a', {href: mine ? '#/documents?all=1' : '#/documents'},
                       t(mine ? 'documents.showAll' : 'documents.showMine')) :
                     null),
      rows.length === 0 ?
          h('p', {}, t('documents.empty')) :
          h('table', {},
            h('thead', {},
              h('tr', {},
                ...['col.title', 'col.status', 'col.version', 'col.ingest', 'col.updated'].map(
                    (key) => h('th', {scope: 'col'}, t(key))))),
            h('tbody', {}, rows)),
      pager(after, page.next, base));
}

/**
 * @param {string | null} after
 * @param {string | null} next
 * @param {string} base
 */
export function pager(after, next, base) {
  return h(
      'div', {class: 'actions'},
      after ? h('a', {href: base.replace(/[?&]$/, '')}, t('page.first')) : null,
      next ? h('a', {href: base + 'after=' + encodeURIComponent(next)}, t('page.next')) : null);
}

// The file types POST /api/v1/documents/import converts (the server decides by content).
const IMPORT_TYPES = '.md,.markdown,.txt,.html,.htm,.docx,.odt,.pdf';

// "Import file": the chosen file becomes a Markdown draft (API.md v1.2 "Formats and import"),
// whose page opens. One Idempotency-Key per chosen file, reused by the automatic retries.
function importControl() {
  const input = h('input', {type: 'file', accept: IMPORT_TYPES, testid: 'import-file'});
  input.addEventListener('change', async () => {
    const file = input.files?.[0];
    if (!file) return;
    const form = new FormData();
    form.append('file', file, file.name);
    const intent =
        {method: 'POST', path: 'api/v1/documents/import', body: form, key: newIdempotencyKey()};
    input.disabled = true;
    try {
      message(t('importing', {name: file.name}), 'busy');
      const {body: doc} = /** @type {Answer<ApiDocument>} */ (
          await api.perform(intent, {onWait: (w) => message(waitingText(w), 'busy')}));
      message(t('imported', {name: file.name}), 'ok');
      location.hash = '#/documents/' + doc.id;
    } catch (error) {
      message(errorText(error), 'error');
    } finally {
      input.disabled = false;
      input.value = '';
    }
  });
  return h('label', {class: 'import'}, t('action.import'), ' ', input);
}

// How long the editor's preview waits after a keystroke before it renders the text again.
const PREVIEW_DELAY_MS = 250;

/**
 * The editor's controls, and `fields`: the form's fields, the content beside its rendered preview
 * while the format is Markdown.
 * @param {string} [title]
 * @param {string} [content]
 * @param {DocumentFormat} [format]
 */
function editorControls(title = '', content = '', format = 'markdown') {
  const titleInput = h(
      'input', {type: 'text', testid: 'title-input', maxlength: 200, required: true, value: title});
  const contentInput = h('textarea', {testid: 'content-input', rows: 18});
  contentInput.value = content;
  const formatInput =
      h('select', {testid: 'format-input'}, h('option', {value: 'markdown'}, t('format.markdown')),
        h('option', {value: 'text'}, t('format.text')));
  formatInput.value = format;
  const preview = h('div', {class: 'preview'}, h('h2', {}, t('editor.preview')));
  /** @type {HTMLElement | null} */
  let rendered = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let pending;
  const refresh = () => {
    clearTimeout(pending);
    const markdown = formatInput.value === 'markdown';
    preview.hidden = !markdown;
    if (!markdown) return;
    if (!rendered) {
      rendered = renderedView(contentInput.value, t('editor.preview'));
      preview.append(rendered);
    } else {
      pending = setTimeout(
          () => showRendered(/** @type {HTMLElement} */ (rendered), contentInput.value),
          PREVIEW_DELAY_MS);
    }
  };
  contentInput.addEventListener('input', refresh);
  formatInput.addEventListener('change', refresh);
  refresh();
  const fields = [
    field('field.title', titleInput),
    field('field.format', formatInput),
    h('div', {class: 'side-by-side'}, field('field.content', contentInput), preview),
  ];
  return {titleInput, contentInput, formatInput, fields};
}

export async function renderEditorNew() {
  const {titleInput, contentInput, formatInput, fields} = editorControls();
  /** @type {Intent | null} */
  let intent = null;  // one key for this form's "create", reused by every retry of it
  const save = actionButton('action.save', 'save', async () => {
    const body = {title: titleInput.value, content: contentInput.value, format: formatInput.value};
    if (!intent || JSON.stringify(intent.body) !== JSON.stringify(body)) {
      intent = {method: 'POST', path: 'api/v1/documents', body, key: newIdempotencyKey()};
    }
    try {
      message(t('saving'), 'busy');
      const {body: doc} = /** @type {Answer<ApiDocument>} */ (
          await api.perform(intent, {onWait: (w) => message(waitingText(w), 'busy')}));
      message(t('saved', {version: doc.version}), 'ok');
      location.hash = '#/documents/' + doc.id;
    } catch (error) {
      message(errorText(error), 'error');
    }
  });
  show(
      h('h1', {}, t('documents.new')),
      h('form', {onsubmit: (/** @type {SubmitEvent} */ e) => e.preventDefault()}, ...fields,
        h('div', {class: 'actions'}, save)));
  titleInput.focus();
}

/** @param {string} id */
async function loadDocument(id) {
  const [doc, content, reviews] =
      /** @type {[ApiDocument, ApiContent, ApiReview[]]} */ (await Promise.all([
    api.get(`api/v1/documents/${id}`),
    api.get(`api/v1/documents/${id}/content`),
    api.getAll(`api/v1/documents/${id}/reviews`),
  ]));
  /** @type {ApiPreview | null} */
  let preview = null;
  if (doc.approved_version !== null) {
    try {
      preview = /** @type {ApiPreview} */ (await api.get(`api/v1/documents/${id}/preview`));
    } catch (error) {
      if (/** @type {Failure} */ (error).status !== 404) throw error;
    }
  }
  return {doc, content, reviews, preview};
}

/** @param {string} id */
export async function renderDocument(id) {
  const stale = renderTicket();
  const loaded = await loadDocument(id);
  if (stale()) return;
  const {doc, content, reviews, preview} = loaded;
  const mine = doc.author_id === /** @type {Claims} */ (state.claims).sub;
  const editable = mine && ['draft', 'rejected', 'approved'].includes(doc.status);
  const conflictBox = h('div');
  /** @type {HTMLElement[]} */
  const sections = [
    h('h1', {}, doc.title),
    h('p', {class: 'meta'}, badge(doc.status, 'status-badge'), ' ', textWith('document.meta', {
        version: doc.version,
        author: person(doc.author_id, doc.author_name),
        updated: formatTime(doc.updated_at)
      })),
  ];
  /** @type {Base} */
  let base = {version: doc.version, title: doc.title, content: content.content, format: doc.format};
  if (editable) {
    const {titleInput, contentInput, formatInput, fields} =
        editorControls(doc.title, content.content, doc.format);
    const edited = () => ({
      title: titleInput.value,
      content: contentInput.value,
      format: /** @type {DocumentFormat} */ (formatInput.value)
    });
    const save = actionButton('action.save', 'save', async () => {
      conflictBox.replaceChildren();
      await saveDocument(doc.id, base, edited(), conflictBox, (next) => {
        base = next;
      });
    });
    if (doc.status === 'approved')
      sections.push(h('p', {class: 'note'}, t('document.revisionNote')));
    sections.push(
        h('form', {onsubmit: (/** @type {SubmitEvent} */ e) => e.preventDefault()}, ...fields,
          conflictBox,
          h('div', {class: 'actions'}, save,
            doc.status !== 'approved' ?
                transitionButton(
                    'action.submit', 'submit', `api/v1/documents/${doc.id}/submit`,
                    () => !sameText(edited(), base)) :
                null)));
  } else {
    const label = t('document.content', {version: doc.version});
    const source = h(
        'div', {class: 'text', tabindex: 0, role: 'region', 'aria-label': label}, content.content);
    sections.push(h('h2', {}, label));
    sections.push(
        doc.format === 'markdown' ?
            h('div', {class: 'side-by-side'}, source,
              renderedView(content.content, t('document.rendered', {version: doc.version}))) :
            source);
    if (mine && doc.status === 'pending_review') {
      sections.push(h(
          'div', {class: 'actions'},
          transitionButton('action.withdraw', 'withdraw', `api/v1/documents/${doc.id}/withdraw`)));
    }
  }
  // The review page: reviewers decide there, and the author assigns reviewers and reads comments.
  if (doc.status === 'pending_review' && doc.current_review_id && (isReviewer() || mine)) {
    sections.push(
        h('p', {}, h('a', {href: '#/reviews/' + doc.current_review_id}, t('document.openReview'))));
  }
  sections.push(h('h2', {}, t('document.history')), historyTable(reviews));
  sections.push(h('h2', {}, t('document.preview')));
  if (preview) {
    sections.push(
        h('p', {class: 'meta'},
          t('document.previewMeta',
            {version: preview.version, approved: formatTime(preview.approved_at)}),
          t('sentence.separator'),
          textWith('document.ingestStatus', {status: badge(doc.ingest_status)})),
        h('div', {class: 'text', tabindex: 0, role: 'region', 'aria-label': t('document.preview')},
          preview.content));
  } else {
    sections.push(h('p', {}, t('document.noPreview')));
  }
  show(...sections);
}

// PUT with If-Match. A 412 shows what changed on the server since this page loaded, and lets the
// author keep theirs (saved over the new version) or take the server's.
// Whether the editor holds what `base` is: title, content and format.
/**
 * @param {Omit<Base, 'version'>} edited
 * @param {Base} base
 */
function sameText(edited, base) {
  return edited.title === base.title && edited.content === base.content &&
      edited.format === base.format;
}

/**
 * @param {string} id
 * @param {Base} base
 * @param {Omit<Base, 'version'>} body what the editor holds
 * @param {HTMLElement} conflictBox
 * @param {(next: Base) => void} rebase
 */
async function saveDocument(id, base, body, conflictBox, rebase) {
  message(t('saving'), 'busy');
  try {
    const {body: doc} = /** @type {Answer<ApiDocument>} */ (await api.request(
        'PUT', `api/v1/documents/${id}`, {body, headers: {'If-Match': `"${base.version}"`}}));
    rebase({version: doc.version, ...body});
    message(t('saved', {version: doc.version}), 'ok');
    if (doc.status !== 'draft' || base.version + 1 !== doc.version) route();
  } catch (error) {
    if (/** @type {Failure} */ (error).code !== 'VERSION_MISMATCH')
      return message(errorText(error), 'error');
    const [doc, current] = /** @type {[ApiDocument, ApiContent]} */ (await Promise.all(
        [api.get(`api/v1/documents/${id}`), api.get(`api/v1/documents/${id}/content`)]));
    const theirs =
        {version: doc.version, title: doc.title, content: current.content, format: doc.format};
    if (sameText(body, theirs)) {
      // Our own earlier attempt did land (its answer was lost): nothing to resolve.
      rebase(theirs);
      return message(t('saved', {version: doc.version}), 'ok');
    }
    message(t('conflict.message', {version: doc.version}), 'error');
    conflictBox.replaceChildren(
        h('div', {class: 'note'}, h('p', {}, t('conflict.explain', {version: doc.version})),
          doc.title !== body.title ? h('p', {}, t('conflict.title', {title: doc.title})) : null,
          diffView(body.content, current.content, 'conflict.diffLabel'),
          h('div', {class: 'actions'},
            h('button', {type: 'button', class: 'secondary', onclick: () => route()},
              t('conflict.takeTheirs')),
            h('button', {
              type: 'button',
              onclick: () => {
                rebase(theirs);
                conflictBox.replaceChildren();
                message(t('conflict.keepMine'), 'info');
              }
            },
              t('conflict.keepMineButton')))));
  }
}

// Submit or withdraw: one Idempotency-Key per intent, reused by the automatic retries.
/**
 * @param {string} labelKey
 * @param {string} testid
 * @param {string} path
 * @param {() => boolean} [unsaved]
 */
function transitionButton(labelKey, testid, path, unsaved = () => false) {
  return actionButton(labelKey, testid, async () => {
    if (unsaved()) return message(t('submit.unsaved'), 'error');
    const intent = {method: 'POST', path, body: {}, key: newIdempotencyKey()};
    try {
      message(t('working'), 'busy');
      await api.perform(intent, {onWait: (w) => message(waitingText(w), 'busy')});
      message(t(testid + '.done'), 'ok');
      route();
    } catch (error) {
      message(errorText(error), 'error');
      if (/** @type {Failure} */ (error).code === 'INVALID_STATE') route();
    }
    return undefined;
  }, testid === 'withdraw' ? 'secondary' : '');
}

/** @param {ApiReview[]} reviews */
function historyTable(reviews) {
  if (reviews.length === 0) return h('p', {}, t('history.empty'));
  return h(
      'table', {},
      h('thead', {},
        h('tr', {},
          ...['col.review', 'col.version', 'col.status', 'col.submitted', 'col.decided',
              'col.comment']
              .map((key) => h('th', {scope: 'col'}, t(key))))),
      h('tbody', {},
        reviews.map(
            (review) =>
                h('tr', {}, h('td', {}, h('a', {href: '#/reviews/' + review.id}, '#' + review.id)),
                  h('td', {}, String(review.document_version)), h('td', {}, badge(review.status)),
                  h('td', {}, textWith('history.by', {
                      who: person(review.submitted_by, review.submitted_by_name),
                      when: formatTime(review.submitted_at)
                    })),
                  h('td', {},
                    review.decided_by ? textWith('history.by', {
                      who: person(review.decided_by, review.decided_by_name),
                      when: formatTime(review.decided_at)
                    }) :
                                        ''),
                  h('td', {}, review.comment ?? '')))));
}
