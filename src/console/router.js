// Hash routing: #/documents  #/documents/new  #/documents/<id>  #/queue  #/reviews/<id>
// #/search?q=  and the top bar that goes with each view.

import {ApiError} from './api.js';
import {errorText, h, message} from './dom.js';
import {isAuthor, isReviewer, renderSignIn, signOut} from './session.js';
import {state, t} from './state.js';

// Section -> (id, query) => a promise of the view drawn; filled by app.js (setViews).
const views = {};

export function setViews(table) {
  Object.assign(views, table);
}

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

function parseHash() {
  const hash = location.hash.replace(/^#/, '');
  const [path, query = ''] = hash.split('?');
  return {parts: path.split('/').filter(Boolean), query: new URLSearchParams(query)};
}

export function route() {
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
  const view = views[section];
  if (!view) {
    location.replace(isAuthor() ? '#/documents' : isReviewer() ? '#/queue' : '#/search');
    return undefined;
  }
  return view(id, query).catch((error) => {
    if (error instanceof ApiError && error.status === 401) return;
    message(errorText(error), 'error');
  });
}

// A view's data arrives after the user may have moved on: `stale()` tells.
export function renderTicket() {
  const ticket = state.render;
  return () => ticket !== state.render;
}
