// @ts-check
// Sign-in: through the company's identity provider when the server offers it (/auth/login; the
// session is an HttpOnly cookie the console never sees, and its CSRF token rides on every change,
// ADR 0013), a pasted token, or a link `/#token=<jwt>` (`docgate token ... --console`); the
// fragment never reaches the server, and the token is moved to sessionStorage and out of the
// address bar at once. The token's claims say who is signed in and which views they get; the header
// names them as the server does (GET /api/v1/me). A link for another user than the one signed in
// here asks before it switches (API.md: a sign-in link never silently replaces a session open in
// the tab; anyone can send a link).

import {byId, confirmDialog, displayName, errorText, field, h, message, show, textWith} from './dom.js';
import {api, state, t, TOKEN_KEY} from './state.js';

/**
 * @typedef {import('./state.js').Claims} Claims
 * @typedef {import('./api.js').ApiMe} ApiMe
 * @typedef {import('./api.js').ApiSession} ApiSession
 */

// What follows a sign-in or sign-out: drawing the page anew (router.js's route, set by app.js; the
// router imports this module, not the other way round).
let redraw = () => {};

/** @param {() => void} action */
export function whenSessionChanges(action) {
  redraw = action;
}

/**
 * The claims of a JWT's payload, unverified (the server verifies every request); null when it is
 * not a JWT with a string `sub` and an array of `roles` (or none).
 * @param {string} token
 * @returns {Claims | null}
 */
export function decodeClaims(token) {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const base64 = (parts[1] ?? '').replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(
        atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')), (c) => c.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes));
    if (typeof claims.sub !== 'string' || !Array.isArray(claims.roles ?? [])) return null;
    return {sub: claims.sub, name: claims.name, roles: claims.roles ?? [], exp: claims.exp};
  } catch (e) {
    return null;
  }
}

// The roles docgate knows (API.md, section 2); a token may carry others, which count for nothing.
const ROLES = ['author', 'reviewer', 'admin'];

// The roles as the server maps them (GET /api/v1/me: an issuer's groups through its role map)
// once it has answered; until then as the token says.
/** @type {(...roles: string[]) => boolean} */
export const hasRole = (...roles) =>
    roles.some((role) => (state.me?.roles ?? state.claims?.roles)?.includes(role) === true);
export const isAuthor = () => hasRole('author', 'admin');
export const isReviewer = () => hasRole('reviewer', 'admin');
/** @returns {string} the signed-in user's id */
export const myId = () => /** @type {import('./state.js').Claims} */ (state.claims).sub;

/** @param {Claims} claims */
export function expired(claims) {
  return typeof claims.exp === 'number' && claims.exp * 1000 <= Date.now();
}

// The first page of the user signed in: their documents, the queue, or search.
export const homeHash = () => (isAuthor() ? '#/documents' : isReviewer() ? '#/queue' : '#/search');

/**
 * Who a token names, as the switch confirmation shows them: the name and, when it says more, the
 * user id (two users may share a name).
 * @param {Claims} claims
 */
export function userLabel(claims) {
  return claims.name && claims.name !== claims.sub ?
      t('user.named', {name: claims.name, id: claims.sub}) :
      claims.sub;
}

// GET /api/v1/me for the token signed in, asked once per sign-in (and once per page load of a
// session kept in the tab): the request in flight, or null. A failed one is forgotten, so that the
// next page asks again; meanwhile the header names the user as the token does.
/** @type {{token: string, answer: Promise<ApiMe>} | null} */
let meRequest = null;

/** @returns {Promise<ApiMe>} */
export function loadMe() {
  const token = /** @type {string} */ (state.token);
  if (meRequest?.token === token) return meRequest.answer;
  const request = {
    token,
    answer: api.get('api/v1/me')
                .then(
                    (body) => {
                      const me = /** @type {ApiMe} */ (body);
                      if (state.token === token) {
                        const before = [isAuthor(), isReviewer()].join();
                        state.me = me;
                        drawCurrentUser();
                        // The views a token's own roles chose, drawn again when the server's
                        // differ (an issuer's groups are mapped to roles by the server).
                        if ([isAuthor(), isReviewer()].join() !== before) redraw();
                      }
                      return me;
                    },
                    (error) => {
                      if (meRequest === request) meRequest = null;
                      throw error;
                    }),
  };
  meRequest = request;
  return request.answer;
}

// The header's "signed in as": the user's name (their id when they have none), their roles, the id
// on hover. Before GET /api/v1/me answers, as the token says.
export function drawCurrentUser() {
  const who = byId('who');
  const claims = state.claims;
  who.hidden = !claims;
  if (!claims) {
    who.textContent = '';
    who.removeAttribute('title');
    return;
  }
  const me = state.me;
  const id = me?.id ?? claims.sub;
  const name = displayName(id, me ? me.name : claims.name);
  const roles = (me?.roles ?? claims.roles).filter((role) => ROLES.includes(role));
  who.title = id;
  // The name alone is the `current-user` element (API.md's test id), inside the sentence.
  const person = h('strong', {testid: 'current-user', class: 'current-user'}, name);
  who.replaceChildren(
      ...(roles.length === 0 ? textWith('who.noRoles', {name: person}) : textWith('who', {
        name: person,
        roles: roles.map((role) => t('role.' + role)).join(t('list.separator')),
      })));
}

/**
 * @param {string} token
 * @param {{quiet?: boolean}} [options]
 */
export async function signIn(token, {quiet = false} = {}) {
  const claims = decodeClaims(token.trim());
  if (!claims) return message(t('signin.malformed'), 'error');
  if (expired(claims)) return message(t('session.expired'), 'error');
  state.token = token.trim();
  state.claims = claims;
  state.me = null;
  meRequest = null;
  try {
    await loadMe();  // checks the token too
  } catch (error) {
    const failed = /** @type {{status?: number, code?: string}} */ (error);
    if (failed.status === 401) return undefined;  // signOut has said why
    if (failed.code !== 'NETWORK' && failed.status !== 503) throw error;
  }
  sessionStorage.setItem(TOKEN_KEY, token.trim());
  if (!quiet) message('');
  scheduleExpiry();
  if (!location.hash.startsWith('#/') || location.hash === '#/' || location.hash === '#/signin') {
    location.hash = homeHash();
  } else {
    redraw();
  }
  return undefined;
}

export function scheduleExpiry() {
  clearTimeout(state.expiryTimer);
  if (typeof state.claims?.exp !== 'number') return;
  const ms = state.claims.exp * 1000 - Date.now();
  // setTimeout's delay is a 32-bit number of milliseconds.
  if (ms < 2 ** 31)
    state.expiryTimer = window.setTimeout(() => signOut('session.expired'), Math.max(0, ms));
}

/** @param {string} [reasonKey] the message to show, if any */
export function signOut(reasonKey) {
  const csrf = state.csrf;
  state.token = null;
  state.csrf = null;
  state.claims = null;
  state.me = null;
  meRequest = null;
  clearTimeout(state.expiryTimer);
  sessionStorage.removeItem(TOKEN_KEY);
  if (location.hash !== '#/signin') history.replaceState(null, '', '#/signin');
  redraw();
  if (reasonKey) message(t(reasonKey), reasonKey === 'session.expired' ? 'error' : 'info');
  if (csrf && reasonKey !== 'session.expired') endSession(csrf);
}

// Ends the provider session's cookie at the server (every instance), then offers the provider's
// own sign-out when it has one: the browser is still signed in there, and a click on "sign in"
// would come straight back.
/** @param {string} csrf */
async function endSession(csrf) {
  try {
    const answer = await api.request('POST', 'auth/logout', {headers: {'X-Docgate-CSRF': csrf}});
    const url = /** @type {{end_session_url: string | null}} */ (answer.body).end_session_url;
    if (!url) return;
    const box = byId('message');
    box.append(' ', h('a', {href: url, testid: 'provider-sign-out'}, t('signout.provider')));
  } catch (error) {
    message(errorText(error), 'error');
  }
}

/**
 * A session opened through the identity provider, as the console's state: no token, the CSRF
 * token, the user as the server names them, and its expiry.
 * @param {ApiSession} session
 */
function adoptSession(session) {
  const user = /** @type {ApiMe} */ (session.user);
  state.token = null;
  sessionStorage.removeItem(TOKEN_KEY);
  state.csrf = session.csrf_token ?? null;
  state.me = user;
  meRequest = null;
  state.claims = {
    sub: user.id,
    name: user.name ?? undefined,
    roles: user.roles,
    exp: session.expires_at ? Math.floor(Date.parse(session.expires_at) / 1000) : undefined,
  };
  scheduleExpiry();
}

/** @param {ApiMe} user */
const labelOf = (user) => userLabel({sub: user.id, name: user.name ?? undefined, roles: []});

// GET /auth/session: whether the server signs people in through a provider, and the session of
// this browser's cookie, if any. A sign-in of another user waiting beside it (the callback sent
// the browser to `#switch`) is asked about, never taken silently.
export async function loadProviderSession() {
  /** @type {ApiSession} */
  let session;
  try {
    session = /** @type {ApiSession} */ ((await api.request('GET', 'auth/session')).body);
  } catch (error) {
    return;  // an older server, or none reachable: the pasted token still works
  }
  state.signInOffered = session.sign_in;
  if (!state.token && session.user) adoptSession(session);
  if (location.hash === '#switch') {
    history.replaceState(null, '', location.pathname + (state.claims ? homeHash() : '#/signin'));
  }
  if (session.pending) await askToSwitch(session);
}

/** @param {ApiSession} session */
async function askToSwitch(session) {
  const next = /** @type {ApiMe} */ (session.pending);
  if (session.user) {
    redraw();  // the page of the open session, under the question
    const body =
        h('p', {testid: 'switch-user'},
          t('signin.switchProviderBody', {current: labelOf(session.user), next: labelOf(next)}));
    const switching = await confirmDialog('signin.switchTitle', {}, body, {
      confirmKey: 'signin.switchConfirm',
      cancelKey: 'signin.switchCancel',
      focusCancel: true,
    });
    if (!switching) {
      await api.request('DELETE', 'auth/switch').catch(() => {});
      message(t('signin.switchKeptProvider', {current: labelOf(session.user)}), 'info');
      return;
    }
  }
  try {
    const headers = session.csrf_token ? {'X-Docgate-CSRF': session.csrf_token} : undefined;
    const answer = await api.request('POST', 'auth/switch', {headers});
    adoptSession(/** @type {ApiSession} */ (answer.body));
    location.hash = homeHash();
    redraw();
  } catch (error) {
    message(errorText(error), 'error');
  }
}

export function renderSignIn() {
  const input =
      h('textarea',
        {testid: 'token-input', class: 'short', rows: 4, autocomplete: 'off', spellcheck: false});
  const form =
      h('form', {
        class: 'signin',
        onsubmit: (/** @type {SubmitEvent} */ e) => {
          e.preventDefault();
          signIn(input.value);
        }
      },
        h('h1', {}, t('signin.title')),
        state.signInOffered ?
            h('p', {},
              h('a', {href: 'auth/login', class: 'button', testid: 'sign-in-provider'},
                t('signin.provider'))) :
            null,
        h('p', {}, textWith('signin.intro', {command: h('code', {}, 'docgate token … --console')})),
        field('signin.token', input, t('signin.hint')),
        h('div', {class: 'actions'},
          h('button', {type: 'submit', testid: 'sign-in'}, t('action.signin'))));
  show(form);
  input.focus();
}

// `/#token=<jwt>`: the token leaves the address bar and the history at once. A link for the user
// signed in here refreshes the token on the page the tab showed (`before`, the hash before the
// link; '' when the page loaded with it); one for another user asks first, and on cancel the tab
// keeps its session and its page. A link that cannot sign in (expired, not a token) leaves the
// session as it is, or shows sign-in, with the reason.
/** @param {string} [before] */
export async function takeTokenFromLink(before = '') {
  let token = '';
  try {
    token = decodeURIComponent(location.hash.slice('#token='.length)).trim();
  } catch (e) {
    token = '';  // malformed percent-encoding: not a token
  }
  const current = state.claims;
  const page = before.startsWith('#/') && before !== '#/' && before !== '#/signin' ? before : '';
  const kept = !current ? '#/signin' : page || homeHash();
  history.replaceState(null, '', location.pathname + location.search + kept);
  const claims = decodeClaims(token);
  if (!claims || expired(claims)) {
    if (!current || !before) redraw();
    message(t(claims ? 'signin.linkExpired' : 'signin.malformed'), 'error');
    return;
  }
  if (current && current.sub !== claims.sub) {
    if (!before) redraw();  // the page of the open session, under the question
    const body =
        h('p', {testid: 'switch-user'},
          t('signin.switchBody', {current: userLabel(current), next: userLabel(claims)}));
    const switching = await confirmDialog('signin.switchTitle', {}, body, {
      confirmKey: 'signin.switchConfirm',
      cancelKey: 'signin.switchCancel',
      focusCancel: true,
    });
    if (!switching) {
      message(t('signin.switchKept', {current: userLabel(current)}), 'info');
      return;
    }
    history.replaceState(null, '', location.pathname + location.search + '#/');
  }
  await signIn(token).catch((error) => message(errorText(error), 'error'));
}

// The token kept in this tab, if it is still valid; an expired one is dropped with a message.
export function restoreSession() {
  if (!state.token) return;
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
