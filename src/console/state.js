// The console's state, its API client and its text (issue 18, ADR 0011): what every view shares.

import {Api} from './api.js';
import {CATALOG, pickLanguage} from './i18n.js';
import {signOut} from './session.js';

export const TOKEN_KEY = 'docgate.token';
export const LANGUAGE_KEY = 'docgate.language';
export const PAGE_SIZE = 20;

export const state = {
  language: pickLanguage(localStorage.getItem(LANGUAGE_KEY), navigator.languages),
  token: sessionStorage.getItem(TOKEN_KEY),
  claims: null,
  render: 0,  // bumped by every navigation; a view whose number is stale drops its results
  timers: [],
  searchModes: null,
};

export const api = new Api({
  token: () => state.token,
  language: () => state.language,
  onUnauthenticated: () => signOut('session.expired'),
});

export function t(key, vars = {}) {
  const text = CATALOG[state.language][key] ?? CATALOG.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ''));
}

export function formatTime(iso) {
  if (!iso) return '';
  return new Date(iso).toLocaleString(state.language);
}
