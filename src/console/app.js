// @ts-check
// The reviewer console: a hash-routed page over /api/v1 (issue 18, ADR 0011). This module starts
// it: the views by section (router.js), the language switch, and the session kept in the tab or
// brought by a sign-in link (session.js).

import {byId, main} from './dom.js';
import {route, setViews} from './router.js';
import {loadProviderSession, restoreSession, signOut, takeTokenFromLink, whenSessionChanges} from './session.js';
import {LANGUAGE_KEY, state, whenUnauthenticated} from './state.js';
import {renderDocument, renderDocuments, renderEditorNew} from './view_documents.js';
import {renderQueue} from './view_queue.js';
import {renderReview} from './view_review.js';
import {renderSearch} from './view_search.js';

setViews({
  documents: (id, query) =>
      (id === 'new' ? renderEditorNew() :
           id       ? renderDocument(id) :
                      renderDocuments(query)),
  queue: (_id, query) => renderQueue(query),
  reviews: (id) => renderReview(id ?? ''),
  search: (_id, query) => renderSearch(query),
});

// The calls that run against the imports (a module calling one that imports it), bound here.
whenSessionChanges(route);
whenUnauthenticated(() => signOut('session.expired'));

async function start() {
  byId('language-switch').addEventListener('change', (e) => {
    const choice = /** @type {HTMLSelectElement} */ (e.target).value;
    state.language = choice === 'zh-CN' ? 'zh-CN' : 'en';
    localStorage.setItem(LANGUAGE_KEY, state.language);
    route();
  });
  window.addEventListener('hashchange', (e) => {
    if (location.hash.startsWith('#token=')) return takeTokenFromLink(new URL(e.oldURL).hash);
    route();
    main().focus({preventScroll: true});
    return undefined;
  });
  restoreSession();
  await loadProviderSession();
  if (location.hash.startsWith('#token=')) return takeTokenFromLink();
  return route();
}

start();
