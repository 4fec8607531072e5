// The reviewer console: a hash-routed page over /api/v1 (issue 18, ADR 0011).
//   #/documents  #/documents/new  #/documents/<id>  #/queue  #/reviews/<id>  #/search?q=
// Sign-in: a pasted token, or a link `/#token=<jwt>` (`docgate token ... --console`); the fragment
// never reaches the server, and the token is moved to sessionStorage and out of the address bar
// at once. Every DOM node is built with textContent, never innerHTML: titles, contents, comments
// and snippets are user text.

import {Api, ApiError, newIdempotencyKey} from './api.js';
import {diff, LIMITS} from './diff.js';
import {CATALOG, pickLanguage} from './i18n.js';

const TOKEN_KEY = 'docgate.token';
const LANGUAGE_KEY = 'docgate.language';
const QUEUE_REFRESH_MS = 5000;
const PAGE_SIZE = 20;
const CONTEXT_LINES = 3;

const state = {
  language: pickLanguage(localStorage.getItem(LANGUAGE_KEY), navigator.languages),
  token: sessionStorage.getItem(TOKEN_KEY),
  claims: null,
  render: 0,  // bumped by every navigation; a view whose number is stale drops its results
  timers: [],
  searchModes: null,
};

const api = new Api({
  token: () => state.token,
  language: () => state.language,
  onUnauthenticated: () => signOut('session.expired'),
});

// ---- text ----

function t(key, vars = {}) {
  const text = CATALOG[state.language][key] ?? CATALOG.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ''));
}

function formatTime(iso) {
  if (!iso) return '';
  return new Date(iso).toLocaleString(state.language);
}

// ---- DOM ----

function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on'))
      node.addEventListener(name.slice(2), value);
    else if (name === 'testid')
      node.dataset.testid = value;
    else if (name === 'text')
      node.textContent = value;
    else if (name in node && typeof value !== 'string')
      node[name] = value;
    else
      node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function badge(status, testid) {
  return h('span', {class: 'badge ' + status, testid}, t('status.' + status));
}

const main = () => document.getElementById('main');

function show(...nodes) {
  main().replaceChildren(...nodes.filter((node) => node !== null && node !== undefined));
}

function message(text, kind = 'info') {
  const box = document.getElementById('message');
  box.textContent = text;
  box.className = 'message ' + kind;
  box.hidden = !text;
  box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
}

function errorText(error) {
  if (!(error instanceof ApiError)) return t('error.unexpected', {detail: String(error)});
  if (error.code === 'NETWORK') return t('error.network');
  const specific = CATALOG[state.language]['code.' + error.code];
  return specific ? t('code.' + error.code, {detail: error.problem?.detail ?? ''}) :
                    error.problem?.detail ?? t('error.http', {status: error.status});
}

function waitingText({code, seconds}) {
  const key = code === 'LOCK_BUSY' ? 'wait.lock' :
      code === 'NETWORK'           ? 'wait.network' :
                                     'wait.busy';
  return t(key, {seconds});
}

function field(labelKey, control, hint) {
  control.id ||= 'f-' + Math.random().toString(36).slice(2);
  return h('div', {}, h('label', { for: control.id
           }, t(labelKey)), control, hint ? h('div', {class: 'meta'}, hint) : null);
}

// A button whose action runs once at a time: disabled, and marked busy, while in flight.
function actionButton(labelKey, testid, run, cls = '') {
  const button = h('button', {type: 'button', testid, class: cls}, t(labelKey));
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
    try {
      await run();
    } finally {
      button.disabled = false;
      button.removeAttribute('aria-busy');
    }
  });
  return button;
}

// Opens the confirmation dialog; resolves true when `confirm` is chosen.
function confirmDialog(titleKey, vars, body) {
  const dialog = document.getElementById('dialog');
  document.getElementById('dialog-title').textContent = t(titleKey, vars);
  document.getElementById('dialog-body').replaceChildren(...(body ? [body] : []));
  return new Promise((resolve) => {
    const confirm =
        h('button', {type: 'submit', value: 'confirm', testid: 'confirm'}, t('action.confirm'));
    const cancel =
        h('button', {type: 'submit', value: 'cancel', class: 'secondary'}, t('action.cancel'));
    document.getElementById('dialog-actions').replaceChildren(confirm, cancel);
    dialog.returnValue = '';
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'confirm'), {once: true});
    dialog.showModal();
    confirm.focus();
  });
}

// ---- session ----

function decodeClaims(token) {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const base64 = parts[1].replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(
        atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')), (c) => c.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes));
    if (typeof claims.sub !== 'string' || !Array.isArray(claims.roles ?? [])) return null;
    return {sub: claims.sub, name: claims.name, roles: claims.roles ?? [], exp: claims.exp};
  } catch (e) {
    return null;
  }
}

const hasRole = (...roles) => roles.some((role) => state.claims?.roles.includes(role));
const isAuthor = () => hasRole('author', 'admin');
const isReviewer = () => hasRole('reviewer', 'admin');

function expired(claims) {
  return typeof claims.exp === 'number' && claims.exp * 1000 <= Date.now();
}

async function signIn(token, {quiet = false} = {}) {
  const claims = decodeClaims(token.trim());
  if (!claims) return message(t('signin.malformed'), 'error');
  if (expired(claims)) return message(t('session.expired'), 'error');
  state.token = token.trim();
  state.claims = claims;
  try {
    await api.get('api/v1/documents?limit=1');
  } catch (error) {
    if (error.status === 401) return undefined;  // signOut has said why
    if (error.code !== 'NETWORK' && error.status !== 503) throw error;
  }
  sessionStorage.setItem(TOKEN_KEY, state.token);
  if (!quiet) message('');
  scheduleExpiry();
  if (!location.hash.startsWith('#/') || location.hash === '#/signin') {
    location.hash = isAuthor() ? '#/documents' : isReviewer() ? '#/queue' : '#/search';
  } else {
    route();
  }
  return undefined;
}

function scheduleExpiry() {
  clearTimeout(state.expiryTimer);
  if (typeof state.claims?.exp !== 'number') return;
  const ms = state.claims.exp * 1000 - Date.now();
  // setTimeout's delay is a 32-bit number of milliseconds.
  if (ms < 2 ** 31)
    state.expiryTimer = setTimeout(() => signOut('session.expired'), Math.max(0, ms));
}

function signOut(reasonKey) {
  state.token = null;
  state.claims = null;
  clearTimeout(state.expiryTimer);
  sessionStorage.removeItem(TOKEN_KEY);
  if (location.hash !== '#/signin') history.replaceState(null, '', '#/signin');
  route();
  if (reasonKey) message(t(reasonKey), reasonKey === 'session.expired' ? 'error' : 'info');
}

// ---- chrome ----

function renderChrome(current) {
  document.documentElement.lang = state.language;
  document.title = t('app.title');
  document.getElementById('skip-link').textContent = t('app.skip');
  document.getElementById('language-label').textContent = t('language.label');
  document.getElementById('language-switch').value = state.language;
  const nav = document.getElementById('nav');
  nav.setAttribute('aria-label', t('nav.label'));
  const account = document.getElementById('account');
  const who = document.getElementById('who');
  if (!state.claims) {
    nav.replaceChildren();
    account.replaceChildren();
    who.textContent = '';
    return;
  }
  const link = (key, href, testid, name) =>
      h('a', {href, testid, 'aria-current': current === name ? 'page' : null}, t(key));
  nav.replaceChildren(...[link('nav.documents', '#/documents', 'nav-documents', 'documents'),
                          isReviewer() ? link('nav.queue', '#/queue', 'nav-queue', 'queue') : null,
                          link('nav.search', '#/search', 'nav-search', 'search'),
  ].filter(Boolean));
  who.textContent = t('who', {
    name: state.claims.name ?? state.claims.sub,
    roles: state.claims.roles.map((role) => t('role.' + role)).join(t('list.separator')),
  });
  account.replaceChildren(
      h('button', {
        type: 'button',
        class: 'secondary',
        testid: 'sign-out',
        onclick: () => signOut('signout.done')
      },
        t('action.signout')));
}

// ---- routing ----

function parseHash() {
  const hash = location.hash.replace(/^#/, '');
  const [path, query = ''] = hash.split('?');
  return {parts: path.split('/').filter(Boolean), query: new URLSearchParams(query)};
}

function route() {
  state.render++;
  for (const timer of state.timers) clearInterval(timer);
  state.timers = [];
  const dialog = document.getElementById('dialog');
  if (dialog.open) dialog.close('cancel');
  if (!state.claims) {
    renderChrome('signin');
    return renderSignIn();
  }
  const {parts, query} = parseHash();
  const [section, id] = parts;
  renderChrome(section);
  const views = {
    documents: () =>
        (id === 'new' ? renderEditorNew() :
             id       ? renderDocument(id) :
                        renderDocuments(query)),
    queue: () => renderQueue(query),
    reviews: () => renderReview(id),
    search: () => renderSearch(query),
  };
  const view = views[section];
  if (!view) {
    location.replace(isAuthor() ? '#/documents' : isReviewer() ? '#/queue' : '#/search');
    return undefined;
  }
  return view().catch((error) => {
    if (error instanceof ApiError && error.status === 401) return;
    message(errorText(error), 'error');
  });
}

// A view's data arrives after the user may have moved on: `stale()` tells.
function renderTicket() {
  const ticket = state.render;
  return () => ticket !== state.render;
}

// ---- sign-in ----

function renderSignIn() {
  const input =
      h('textarea',
        {testid: 'token-input', class: 'short', rows: 4, autocomplete: 'off', spellcheck: false});
  const form =
      h('form', {
        class: 'signin',
        onsubmit: (e) => {
          e.preventDefault();
          signIn(input.value);
        }
      },
        h('h1', {}, t('signin.title')), h('p', {}, t('signin.intro')),
        field('signin.token', input, t('signin.hint')),
        h('div', {class: 'actions'},
          h('button', {type: 'submit', testid: 'sign-in'}, t('action.signin'))));
  show(form);
  input.focus();
}

// ---- author: documents ----

async function renderDocuments(query) {
  const stale = renderTicket();
  const after = query.get('after');
  const params = new URLSearchParams({limit: String(PAGE_SIZE)});
  const mine = isAuthor() && query.get('all') !== '1';
  if (mine) params.set('author_id', state.claims.sub);
  if (after) params.set('after', after);
  const page = await api.get('api/v1/documents?' + params);
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

function pager(after, next, base) {
  return h(
      'div', {class: 'actions'},
      after ? h('a', {href: base.replace(/[?&]$/, '')}, t('page.first')) : null,
      next ? h('a', {href: base + 'after=' + encodeURIComponent(next)}, t('page.next')) : null);
}

function editorControls(title = '', content = '') {
  const titleInput = h(
      'input', {type: 'text', testid: 'title-input', maxlength: 200, required: true, value: title});
  const contentInput = h('textarea', {testid: 'content-input', rows: 18});
  contentInput.value = content;
  return {titleInput, contentInput};
}

async function renderEditorNew() {
  const {titleInput, contentInput} = editorControls();
  let intent = null;  // one key for this form's "create", reused by every retry of it
  const save = actionButton('action.save', 'save', async () => {
    const body = {title: titleInput.value, content: contentInput.value};
    if (!intent || JSON.stringify(intent.body) !== JSON.stringify(body)) {
      intent = {method: 'POST', path: 'api/v1/documents', body, key: newIdempotencyKey()};
    }
    try {
      message(t('saving'), 'busy');
      const {body: doc} =
          await api.perform(intent, {onWait: (w) => message(waitingText(w), 'busy')});
      message(t('saved', {version: doc.version}), 'ok');
      location.hash = '#/documents/' + doc.id;
    } catch (error) {
      message(errorText(error), 'error');
    }
  });
  show(
      h('h1', {}, t('documents.new')),
      h('form', {onsubmit: (e) => e.preventDefault()}, field('field.title', titleInput),
        field('field.content', contentInput), h('div', {class: 'actions'}, save)));
  titleInput.focus();
}

async function loadDocument(id) {
  const [doc, content, reviews] = await Promise.all([
    api.get(`api/v1/documents/${id}`),
    api.get(`api/v1/documents/${id}/content`),
    api.get(`api/v1/documents/${id}/reviews`),
  ]);
  let preview = null;
  if (doc.approved_version !== null) {
    try {
      preview = await api.get(`api/v1/documents/${id}/preview`);
    } catch (error) {
      if (error.status !== 404) throw error;
    }
  }
  return {doc, content, reviews: reviews.items, preview};
}

async function renderDocument(id) {
  const stale = renderTicket();
  const loaded = await loadDocument(id);
  if (stale()) return;
  const {doc, content, reviews, preview} = loaded;
  const mine = doc.author_id === state.claims.sub;
  const editable = mine && ['draft', 'rejected', 'approved'].includes(doc.status);
  const conflictBox = h('div');
  const sections = [
    h('h1', {}, doc.title),
    h('p', {class: 'meta'}, badge(doc.status, 'status-badge'), ' ',
      t('document.meta',
        {version: doc.version, author: doc.author_id, updated: formatTime(doc.updated_at)})),
  ];
  let base = {version: doc.version, title: doc.title, content: content.content};
  if (editable) {
    const {titleInput, contentInput} = editorControls(doc.title, content.content);
    const save = actionButton('action.save', 'save', async () => {
      conflictBox.replaceChildren();
      await saveDocument(doc.id, base, titleInput, contentInput, conflictBox, (next) => {
        base = next;
      });
    });
    if (doc.status === 'approved')
      sections.push(h('p', {class: 'note'}, t('document.revisionNote')));
    sections.push(
        h('form', {onsubmit: (e) => e.preventDefault()}, field('field.title', titleInput),
          field('field.content', contentInput), conflictBox,
          h('div', {class: 'actions'}, save,
            doc.status !== 'approved' ?
                transitionButton(
                    'action.submit', 'submit', `api/v1/documents/${doc.id}/submit`,
                    () => titleInput.value !== base.title || contentInput.value !== base.content) :
                null)));
  } else {
    sections.push(
        h('h2', {}, t('document.content', {version: doc.version})),
        h('div', {
          class: 'text',
          tabindex: 0,
          role: 'region',
          'aria-label': t('document.content', {version: doc.version})
        },
          content.content));
    if (mine && doc.status === 'pending_review') {
      sections.push(h(
          'div', {class: 'actions'},
          transitionButton('action.withdraw', 'withdraw', `api/v1/documents/${doc.id}/withdraw`)));
    }
  }
  if (doc.status === 'pending_review' && doc.current_review_id && isReviewer() && !mine) {
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
          ' ', t('col.ingest'), ': ', badge(doc.ingest_status)),
        h('div', {class: 'text', tabindex: 0, role: 'region', 'aria-label': t('document.preview')},
          preview.content));
  } else {
    sections.push(h('p', {}, t('document.noPreview')));
  }
  show(...sections);
}

// PUT with If-Match. A 412 shows what changed on the server since this page loaded, and lets the
// author keep theirs (saved over the new version) or take the server's.
async function saveDocument(id, base, titleInput, contentInput, conflictBox, rebase) {
  const body = {title: titleInput.value, content: contentInput.value};
  message(t('saving'), 'busy');
  try {
    const {body: doc} = await api.request(
        'PUT', `api/v1/documents/${id}`, {body, headers: {'If-Match': `"${base.version}"`}});
    rebase({version: doc.version, title: body.title, content: body.content});
    message(t('saved', {version: doc.version}), 'ok');
    if (doc.status !== 'draft' || base.version + 1 !== doc.version) route();
  } catch (error) {
    if (error.code !== 'VERSION_MISMATCH') return message(errorText(error), 'error');
    const [doc, current] = await Promise.all(
        [api.get(`api/v1/documents/${id}`), api.get(`api/v1/documents/${id}/content`)]);
    if (doc.title === body.title && current.content === body.content) {
      // Our own earlier attempt did land (its answer was lost): nothing to resolve.
      rebase({version: doc.version, title: doc.title, content: current.content});
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
                rebase({version: doc.version, title: doc.title, content: current.content});
                conflictBox.replaceChildren();
                message(t('conflict.keepMine'), 'info');
              }
            },
              t('conflict.keepMineButton')))));
  }
}

// Submit or withdraw: one Idempotency-Key per intent, reused by the automatic retries.
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
      if (error.code === 'INVALID_STATE') route();
    }
    return undefined;
  }, testid === 'withdraw' ? 'secondary' : '');
}

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
                  h('td', {},
                    t('history.by',
                      {who: review.submitted_by, when: formatTime(review.submitted_at)})),
                  h('td', {},
                    review.decided_by ?
                        t('history.by',
                          {who: review.decided_by, when: formatTime(review.decided_at)}) :
                        ''),
                  h('td', {}, review.comment ?? '')))));
}

// ---- reviewer: queue ----

async function renderQueue(query) {
  const stale = renderTicket();
  const after = query.get('after');
  const load = async () => {
    const params = new URLSearchParams({status: 'pending', limit: String(PAGE_SIZE)});
    if (after) params.set('after', after);
    const page = await api.get('api/v1/reviews?' + params);
    const docs = await Promise.all(page.items.map(
        (review) => api.get('api/v1/documents/' + review.document_id).catch((error) => {
          if (error.status === 404) return null;
          throw error;
        })));
    return {page, docs};
  };
  const draw = ({page, docs}) => {
    const items = page.items.map(
        (review, i) =>
            h('li', {testid: 'queue-item'},
              h('a', {href: '#/reviews/' + review.id},
                docs[i]?.title ?? t('queue.document', {id: review.document_id})),
              ' ', h('span', {class: 'meta'}, t('queue.meta', {
                       version: review.document_version,
                       who: review.submitted_by,
                       when: formatTime(review.submitted_at)
                     }))));
    show(
        h('h1', {}, t('queue.title')),
        h('p', {class: 'meta'}, t('queue.refresh', {seconds: QUEUE_REFRESH_MS / 1000})),
        items.length === 0 ? h('p', {}, t('queue.empty')) : h('ol', {class: 'results'}, items),
        pager(after, page.next, '#/queue?'));
  };
  const first = await load();
  if (stale()) return;
  draw(first);
  // Refreshed as other reviewers decide; keeps the focus where it was when nothing moved.
  state.timers.push(setInterval(async () => {
    if (document.hidden || stale()) return;
    try {
      const next = await load();
      if (stale()) return;
      if (JSON.stringify(next.page) !== JSON.stringify(first.page)) {
        first.page = next.page;
        draw(next);
      }
    } catch (error) {
      if (!stale()) message(errorText(error), 'error');
    }
  }, QUEUE_REFRESH_MS));
}

// ---- reviewer: a review ----

async function versionContent(docId, version) {
  try {
    return (await api.get(`api/v1/documents/${docId}/versions/${version}`)).content;
  } catch (error) {
    if (error.status === 404) return null;
    throw error;
  }
}

// Why the signed-in user may not decide this review (the four-eyes rule of API.md v1.1), or null.
function selfReviewReason(doc, review, versions) {
  if (doc.author_id === state.claims.sub) return t('self.author');
  const since = doc.approved_version ?? 0;
  const edited = versions.some(
      (v) => v.version > since && v.version <= review.document_version &&
          v.edited_by === state.claims.sub);
  return edited ? t('self.editor', {version: review.document_version}) : null;
}

async function renderReview(id) {
  const stale = renderTicket();
  const review = await api.get('api/v1/reviews/' + id);
  const [doc, versions] = await Promise.all([
    api.get('api/v1/documents/' + review.document_id),
    api.get(`api/v1/documents/${review.document_id}/versions`),
  ]);
  const submitted = await versionContent(doc.id, review.document_version);
  let approved = null;
  const baseVersion =
      doc.approved_version !== null && doc.approved_version < review.document_version ?
      doc.approved_version :
      null;
  if (baseVersion !== null) {
    approved = await versionContent(doc.id, baseVersion);
    if (approved === null) {
      const preview = await api.get(`api/v1/documents/${doc.id}/preview`).catch(() => null);
      if (preview?.version === baseVersion) approved = preview.content;
    }
  }
  if (stale()) return;
  const sections = [
    h('h1', {}, t('review.title', {
        title: versions.items.find((v) => v.version === review.document_version)?.title ?? doc.title
      })),
    h('p', {class: 'meta'}, badge(review.status), ' ', t('review.meta', {
        id: review.id,
        version: review.document_version,
        author: doc.author_id,
        who: review.submitted_by,
        when: formatTime(review.submitted_at)
      }),
      ' ', h('a', {href: '#/documents/' + doc.id}, t('review.openDocument'))),
  ];
  if (submitted === null) {
    sections.push(h('p', {class: 'note'}, t('review.pruned')));
  } else if (approved === null) {
    sections.push(
        h('h2', {}, t('review.firstReview')),
        h('div', {
          class: 'text',
          testid: 'diff',
          tabindex: 0,
          role: 'region',
          'aria-label': t('review.firstReview')
        },
          submitted));
  } else {
    sections.push(
        h('h2', {}, t('review.diffTitle', {from: baseVersion, to: review.document_version})),
        diffView(
            approved, submitted, 'review.diffTitle',
            {from: baseVersion, to: review.document_version}));
  }
  if (review.status !== 'pending') {
    sections.push(h('p', {class: 'note'}, decidedText(review)));
  } else if (isReviewer()) {
    sections.push(...decisionControls(review, doc, selfReviewReason(doc, review, versions.items)));
  }
  show(...sections);
}

function decidedText(review) {
  return t('review.decided', {
    status: t('status.' + review.status),
    who: review.decided_by ?? review.submitted_by,
    when: formatTime(review.decided_at),
    comment: review.comment ? ' — ' + review.comment : ''
  });
}

function decisionControls(review, doc, blocked) {
  const comment =
      h('textarea', {testid: 'comment-input', class: 'short', rows: 3, maxlength: 2000});
  const reason = h('textarea', {testid: 'reason-input', class: 'short', rows: 3, maxlength: 2000});
  const blockedNote =
      blocked ? h('p', {class: 'note', id: 'self-review-note', role: 'note'}, blocked) : null;
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
      await api.perform(intent, {onWait: (w) => message(waitingText(w), 'busy')});
      message(t(verb + '.done'), 'ok');
      await renderReview(review.id);
    } catch (error) {
      if (error.code === 'INVALID_STATE') {
        const now = await api.get('api/v1/reviews/' + review.id);
        message(t('review.alreadyDecided', {state: decidedText(now)}), 'error');
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
  return [
    blockedNote,
    h('h2', {}, t('review.decide')),
    field('field.comment', comment, t('field.commentHint')),
    h('div', {class: 'actions'}, approve),
    field('field.reason', reason, t('field.reasonHint')),
    h('div', {class: 'actions'}, reject),
  ];
}

// The diff of `before` to `after`, unchanged stretches folded to CONTEXT_LINES lines around each
// change; the full text of `after` when the diff exceeds its budget (diff.js LIMITS).
function diffView(before, after, labelKey, vars = {}) {
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

// ---- search ----

async function searchModes() {
  if (state.searchModes) return state.searchModes;
  try {
    const ready = await fetch('readyz', {cache: 'no-store'}).then((r) => r.json());
    state.searchModes = ready.checks?.embeddings && ready.checks.embeddings !== 'off' ?
        ['hybrid', 'keyword', 'semantic'] :
        ['keyword'];
  } catch (e) {
    state.searchModes = ['keyword'];
  }
  return state.searchModes;
}

async function renderSearch(query) {
  const stale = renderTicket();
  const q = query.get('q') ?? '';
  const modes = await searchModes();
  const mode = modes.includes(query.get('mode')) ? query.get('mode') : modes[0];
  const input = h('input', {type: 'search', testid: 'search-input', value: q});
  const modeSelect = modes.length > 1 ?
      h('select', {},
        modes.map((m) => h('option', {value: m, selected: m === mode}, t('mode.' + m)))) :
      null;
  const form =
      h('form', {
        role: 'search',
        onsubmit: (e) => {
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
  const answer = await api.get('api/v1/search?' + params);
  if (stale()) return;
  results.replaceChildren(
      h('p', {class: 'meta'},
        t('search.count', {count: answer.items.length, mode: t('mode.' + answer.mode)})),
      h('ol', {class: 'results'},
        answer.items.map(
            (item) => h(
                'li', {testid: 'search-result'},
                h('a', {href: '#/documents/' + item.document_id}, item.title),
                h('span', {class: 'meta'}, ' ',
                  t('search.meta', {version: item.version, score: Number(item.score).toFixed(3)})),
                h('div', {}, highlighted(item.snippet, item.highlights ?? []))))));
}

// The snippet with its [start, end) ranges, in code points, wrapped in <mark>.
function highlighted(snippet, ranges) {
  const points = Array.from(snippet);
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

// ---- start ----

function start() {
  document.getElementById('language-switch').addEventListener('change', (e) => {
    state.language = e.target.value === 'zh-CN' ? 'zh-CN' : 'en';
    localStorage.setItem(LANGUAGE_KEY, state.language);
    route();
  });
  window.addEventListener('hashchange', () => {
    if (location.hash.startsWith('#token=')) return takeTokenFromLink();
    route();
    document.getElementById('main').focus({preventScroll: true});
    return undefined;
  });
  if (location.hash.startsWith('#token=')) return takeTokenFromLink();
  if (state.token) {
    const claims = decodeClaims(state.token);
    if (claims && !expired(claims)) {
      state.claims = claims;
      scheduleExpiry();
    } else {
      sessionStorage.removeItem(TOKEN_KEY);
      state.token = null;
      if (claims) message(t('session.expired'), 'error');
    }
  }
  return route();
}

// `/#token=<jwt>`: take the token and drop it from the address bar and the history at once.
function takeTokenFromLink() {
  const token = decodeURIComponent(location.hash.slice('#token='.length));
  history.replaceState(null, '', location.pathname + location.search + '#/');
  signIn(token).catch((error) => message(errorText(error), 'error'));
}

start();
