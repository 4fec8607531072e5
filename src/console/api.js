// @ts-check
// The console's client of /api/v1: the bearer token (or the session cookie with its CSRF token,
// when signed in through the identity provider), the console's language for the server's
// problem details, and the one place where a click becomes a request that is safe to repeat.
// The shapes below are shared/API.md's resources as the console reads them; an answer's body is
// `unknown` until a caller says which of them it is (`/** @type {ApiDocument} */ (await ...)`).

/**
 * @typedef {'draft' | 'pending_review' | 'approved' | 'rejected'} DocumentStatus
 * How a document's content is written (API.md v1.2 "Formats and import").
 * @typedef {'markdown' | 'text'} DocumentFormat
 * A person is an id (a token's `sub`); an `..._name` beside it is their display name, null when
 * docgate has never seen one (API.md, "Names"): the console shows the id then.
 * @typedef {{id: string, title: string, status: DocumentStatus, version: number,
 *   author_id: string, author_name: string | null, current_review_id: string | null,
 *   approved_version: number | null, ingest_status: 'none' | 'pending' | 'done' | 'failed',
 *   format: DocumentFormat, created_at: string, updated_at: string}} ApiDocument
 * @typedef {{id: string, document_id: string, document_version: number,
 *   status: 'pending' | 'approved' | 'rejected' | 'withdrawn', submitted_by: string,
 *   submitted_by_name: string | null, submitted_at: string, decided_by: string | null,
 *   decided_by_name: string | null, decided_at: string | null,
 *   comment: string | null, required_approvals: number, assignees: string[],
 *   approvals: ApiApproval[]}} ApiReview
 * One reviewer's approval of a review (API.md v1.2 "Review policy").
 * @typedef {{reviewer_id: string, reviewer_name: string | null, comment: string | null,
 *   decided_at: string}} ApiApproval
 * A comment on a review (API.md v1.2 "Comments"): `line` a 1-based line of the reviewed version
 * (its text split on "\n"), null for one on the whole document; `parent_id` the comment it answers.
 * @typedef {{id: string, review_id: string, document_version: number, author_id: string,
 *   author_name: string | null, body: string, line: number | null, parent_id: string | null,
 *   created_at: string}} ApiComment
 * Someone docgate has seen (GET /api/v1/users/{id}).
 * @typedef {{id: string, name: string | null}} ApiUser
 * A review of the queue, with its document's current title.
 * @typedef {ApiReview & {title: string}} ApiQueueItem
 * @typedef {{document_id: string, version: number, content: string}} ApiContent
 * @typedef {{document_id: string, version: number, content: string, approved_at: string}}
 *   ApiPreview
 * A version line: who wrote it, as ids only (API.md, "Names").
 * @typedef {{version: number, title: string, edited_by: string, editors: string[],
 *   created_at: string, review_id: string | null, review_status: string | null}} ApiVersionItem
 * @typedef {{document_id: string, version: number, title: string, content: string}} ApiVersion
 * A hit; `highlights`: the matches in `snippet`, [start, end) in code points.
 * @typedef {{document_id: string, version: number, title: string, snippet: string,
 *   score: number, highlights?: [number, number][], chunk_index?: number,
 *   section?: string}} ApiSearchItem
 * @typedef {{items: ApiSearchItem[], mode?: string, fallback?: string}} ApiSearchAnswer
 * The caller (GET /api/v1/me): `name` null when the token carries none; `roles` docgate's.
 * @typedef {{id: string, name: string | null, roles: string[]}} ApiMe
 * This browser's session through the identity provider (GET /auth/session, ADR 0013): `user` and
 * its `csrf_token` when signed in, `pending` another user's sign-in waiting for a word.
 * @typedef {{sign_in: boolean, user: ApiMe | null, pending: ApiMe | null, csrf_token?: string,
 *   expires_at?: string}} ApiSession
 */
/**
 * A page of a list: `next` is the cursor of the next page, null on the last.
 * @template T
 * @typedef {{items: T[], next: string | null}} ApiPage
 */
/**
 * @typedef {{type?: string, title?: string, status?: number, detail?: string, code?: string,
 *   [field: string]: unknown}} Problem
 * @typedef {{status: number, body: unknown, etag: string | null}} ApiAnswer
 * @typedef {{method: string, path: string, body?: unknown, key: string}} Intent
 * @typedef {{code: string, seconds: number, attempt: number}} Wait
 */

export class ApiError extends Error {
  // status: HTTP status (0: no answer); problem: the problem+json body, when there was one.
  /**
   * @param {number} status
   * @param {Problem | null} problem
   * @param {number | undefined} retryAfter
   */
  constructor(status, problem, retryAfter) {
    super(problem?.detail ?? `HTTP ${status}`);
    this.status = status;
    this.code = problem?.code ?? (status === 0 ? 'NETWORK' : 'HTTP_' + status);
    this.problem = problem;
    this.retryAfter = retryAfter;
  }
}

// An Idempotency-Key: 128 random bits. crypto.getRandomValues works outside secure contexts too
// (a console on plain http inside a company network), crypto.randomUUID does not.
export function newIdempotencyKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return 'console-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const RETRY_CODES = new Set(['NETWORK', 'LOCK_BUSY', 'IDEMPOTENCY_IN_FLIGHT', 'UNAVAILABLE']);
export const MAX_ATTEMPTS = 8;
// The largest `limit` a list takes (API.md).
const MAX_PAGE_SIZE = 100;

/** @param {Response} response */
function retryAfterSeconds(response) {
  const value = Number.parseInt(response.headers.get('Retry-After') ?? '', 10);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

export class Api {
  // token(): the current bearer token; csrf(): the session's CSRF token when signed in through
  // the identity provider (the cookie goes by itself); language(): 'zh-CN' or 'en';
  // onUnauthenticated(error): called on any 401 (expired or revoked token) before the error is
  // thrown.
  /**
   * @param {{token: () => string | null, csrf?: () => string | null, language: () => string,
   *   onUnauthenticated: (error: ApiError) => void}} options
   */
  constructor({token, csrf = () => null, language, onUnauthenticated}) {
    this.token = token;
    this.csrf = csrf;
    this.language = language;
    this.onUnauthenticated = onUnauthenticated;
  }

  // {status, body, etag}; throws ApiError for any answer that is not 2xx, and for no answer.
  /**
   * @param {string} method
   * @param {string} path
   * @param {{body?: unknown, headers?: Record<string, string>}} [options]
   * @returns {Promise<ApiAnswer>}
   */
  async request(method, path, {body, headers = {}} = {}) {
    /** @type {Record<string, string>} */
    const sent = {Accept: 'application/json', 'Accept-Language': this.language(), ...headers};
    const token = this.token();
    const csrf = this.csrf();
    if (token) {
      sent['Authorization'] = 'Bearer ' + token;
    } else if (csrf && method !== 'GET' && method !== 'HEAD') {
      sent['X-Docgate-CSRF'] = csrf;
    }
    /** @type {RequestInit} */
    const init = {method, headers: sent, cache: 'no-store', credentials: 'same-origin'};
    if (body instanceof FormData) {
      init.body = body;  // multipart/form-data, its boundary set by the browser
    } else if (body !== undefined) {
      sent['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (e) {
      throw new ApiError(0, null, undefined);
    }
    const text = await response.text();
    /** @type {unknown} */
    let parsed = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch (e) {
      parsed = null;
    }
    if (!response.ok) {
      const problem =
          parsed !== null && typeof parsed === 'object' ? /** @type {Problem} */ (parsed) : null;
      const error = new ApiError(response.status, problem, retryAfterSeconds(response));
      if (response.status === 401) this.onUnauthenticated(error);
      throw error;
    }
    return {status: response.status, body: parsed, etag: response.headers.get('ETag')};
  }

  /**
   * @param {string} path
   * @returns {Promise<unknown>}
   */
  get(path) {
    return this.request('GET', path).then((r) => r.body);
  }

  // Every item of a paged list (`path` without a query), following `next` page by page, at the
  // largest page size: a document's versions and reviews, which a page shows whole.
  /**
   * @param {string} path
   * @returns {Promise<unknown[]>}
   */
  async getAll(path) {
    /** @type {unknown[]} */
    const items = [];
    /** @type {string | null} */
    let after = null;
    do {
      const query = new URLSearchParams({limit: String(MAX_PAGE_SIZE)});
      if (after !== null) query.set('after', after);
      const page = /** @type {ApiPage<unknown>} */ (await this.get(path + '?' + query));
      items.push(...page.items);
      after = page.next;
    } while (after !== null);
    return items;
  }

  // A user's intent (approve this review, submit this document, ...) carried out exactly once:
  // `intent` = {method, path, body, key}, its key made once when the intent was formed. Busy locks,
  // a request still in flight, 503 and lost connections are retried with the same key after
  // Retry-After (or 1, 2, 4 ... s), so a retry that reaches a server which already did the work
  // gets the stored answer instead of doing it again. onWait({code, seconds, attempt}) is told
  // before each wait. Other errors are thrown at once.
  /**
   * @param {Intent} intent
   * @param {{onWait?: (wait: Wait) => void, sleep?: (ms: number) => Promise<void>}} [options]
   * @returns {Promise<ApiAnswer>}
   */
  async perform(intent, {onWait = () => {}, sleep = defaultSleep} = {}) {
    for (let attempt = 1;; attempt++) {
      try {
        return await this.request(intent.method, intent.path, {
          body: intent.body,
          headers: {'Idempotency-Key': intent.key},
        });
      } catch (error) {
        if (!(error instanceof ApiError) || !RETRY_CODES.has(error.code) ||
            attempt >= MAX_ATTEMPTS) {
          throw error;
        }
        const seconds = Math.max(1, error.retryAfter ?? Math.min(8, 2 ** (attempt - 1)));
        onWait({code: error.code, seconds, attempt});
        await sleep(seconds * 1000);
      }
    }
  }
}

/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
function defaultSleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
