// @ts-check
// Hash routing: #/documents  #/documents/new  #/documents/<id>  #/queue  #/reviews/<id>
// #/search?q=  and the top bar that goes with each view.

import {ApiError} from './api.js';
import {byId, errorText, h, message} from './dom.js';
import {drawCurrentUser, homeHash, isReviewer, loadMe, renderSignIn, signOut} from './session.js';
import {state, t} from './state.js';

/**
 * A view: draws the page of a section from the hash's id (`#/documents/<id>`) and query.
 * @typedef {(id: string | undefined, query: URLSearchParams) => Promise<unknown>} View
 */

// Section -> (id, query) => a promise of the view drawn; filled by app.js (setViews).
/** @type {Record<string, View>} */
const views = {};

/** @param {Record<string, View>} table */
export function setViews(table) {
  Object.assign(views, table);
}

/** @param {string | undefined} current */
function renderChrome(current) {
  document.documentElement.lang = state.language;
  document.title = t('app.title');
  byId('skip-link').textContent = t('app.skip');
  byId('language-label').textContent = t('language.label');
  /** @type {HTMLSelectElement} */ (byId('language-switch')).value = state.language;
  const nav = byId('nav');
  nav.setAttribute('aria-label', t('nav.label'));
  const account = byId('account');
  drawCurrentUser();
  if (!state.claims) {
    nav.replaceChildren();
    account.replaceChildren();
    return;
  }
  // A session kept in the tab: the server names its user once the page has loaded (a 401 signs
  // out; another failure leaves the token's own name until the next page asks again).
  if (!state.me) loadMe().catch(() => {});
  /** @type {(key: string, href: string, testid: string, name: string) => HTMLAnchorElement} */
  const link = (key, href, testid, name) =>
      h('a', {href, testid, 'aria-current': current === name ? 'page' : null}, t(key));
  nav.replaceChildren(...[link('nav.documents', '#/documents', 'nav-documents', 'documents'),
                          isReviewer() ? link('nav.queue', '#/queue', 'nav-queue', 'queue') : null,
                          link('nav.search', '#/search', 'nav-search', 'search'),
  ].filter((item) => item !== null));
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

/** @returns {Promise<unknown> | void} */
export function route() {
  state.render++;
  for (const timer of state.timers) clearInterval(timer);
  state.timers = [];
  const dialog = /** @type {HTMLDialogElement} */ (byId('dialog'));
  if (dialog.open) dialog.close('cancel');
  if (!state.claims) {
    renderChrome('signin');
    return renderSignIn();
  }
  const {parts, query} = parseHash();
  const [section, id] = parts;
  renderChrome(section);
  const view = section === undefined ? undefined : views[section];
  if (!view) {
    location.replace(homeHash());
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
