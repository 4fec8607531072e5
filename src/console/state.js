// @ts-check
// The console's state, its API client and its text (issue 18, ADR 0011): what every view shares.

import {Api} from './api.js';
import {CATALOG, pickLanguage} from './i18n.js';

export const TOKEN_KEY = 'docgate.token';
export const LANGUAGE_KEY = 'docgate.language';
export const PAGE_SIZE = 20;

/**
 * What the token says of its holder (session.js reads it, unverified: the server checks it).
 * @typedef {{sub: string, name?: string, roles: string[], exp?: number}} Claims
 */

/**
 * `me`: the signed-in user as the server describes them (GET /api/v1/me), null until it answers.
 * `csrf`: the session's CSRF token when signed in through the identity provider (then `token` is
 * null); `signInOffered`: whether the server signs people in through one (GET /auth/session).
 * @type {{language: import('./i18n.js').Language, token: string | null, claims: Claims | null,
 *   me: import('./api.js').ApiMe | null, render: number, timers: number[],
 *   searchModes: string[] | null, expiryTimer?: number, csrf: string | null,
 *   signInOffered: boolean}}
 */
export const state = {
  language: pickLanguage(localStorage.getItem(LANGUAGE_KEY), navigator.languages),
  token: sessionStorage.getItem(TOKEN_KEY),
  claims: null,
  me: null,
  render: 0,  // bumped by every navigation; a view whose number is stale drops its results
  timers: [],
  searchModes: null,
  csrf: null,
  signInOffered: false,
};

// What a 401 answer does (session.js signs out); app.js sets it, so that this module, which every
// other imports, imports none of them.
let unauthenticated = () => {};

/** @param {() => void} action */
export function whenUnauthenticated(action) {
  unauthenticated = action;
}

export const api = new Api({
  token: () => state.token,
  csrf: () => state.csrf,
  language: () => state.language,
  onUnauthenticated: () => unauthenticated(),
});

/**
 * The text of `key` in the console's language (English when it has none), `{name}` filled in.
 * @param {string} key
 * @param {Record<string, string | number>} [vars]
 * @returns {string}
 */
export function t(key, vars = {}) {
  const text = CATALOG[state.language][key] ?? CATALOG.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ''));
}

/** @param {string | null | undefined} iso */
export function formatTime(iso) {
  if (!iso) return '';
  return new Date(iso).toLocaleString(state.language);
}

// Display names by user id (GET /api/v1/users/{id}), asked once per id while the page lives: a
// person the API names by id alone (an assignee) is shown by name. null when docgate has never seen
// them (404) or cannot say now; a failed answer is forgotten, so that the next page asks again.
/** @type {Map<string, Promise<string | null>>} */
const names = new Map();

/**
 * @param {string} id
 * @returns {Promise<string | null>}
 */
export function userName(id) {
  const known = names.get(id);
  if (known) return known;
  const asked = api.get('api/v1/users/' + encodeURIComponent(id))
                    .then((body) => /** @type {import('./api.js').ApiUser} */ (body).name ?? null)
                    .catch((error) => {
                      if (/** @type {{status?: number}} */ (error).status !== 404) names.delete(id);
                      return null;
                    });
  names.set(id, asked);
  return asked;
}
