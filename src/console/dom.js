// @ts-check
// Building the page: every node with textContent, never innerHTML (titles, contents, comments and
// snippets are user text); the message line, buttons that run once at a time, the dialog.

import {ApiError} from './api.js';
import {CATALOG} from './i18n.js';
import {state, t} from './state.js';

/**
 * A child of h(): a node, text (a number is shown as text), nothing, or a list of them.
 * @typedef {Node | string | number | null | undefined | false} Leaf
 * @typedef {Leaf | Leaf[]} Child
 */

/**
 * An element: `on<event>` props are listeners, `testid` the data-testid, `text` the text, a prop
 * the element has (and not given as a string) is set as a property, any other an attribute (true:
 * present); null, undefined and false props are left out.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [props]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on'))
      node.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    else if (name === 'testid')
      node.dataset.testid = String(value);
    else if (name === 'text')
      node.textContent = String(value);
    else if (name in node && typeof value !== 'string')
      /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (node))[name] = value;
    else
      node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * @param {string} status
 * @param {string} [testid]
 */
export function badge(status, testid) {
  return h('span', {class: 'badge ' + status, testid}, t('status.' + status));
}

// A person as the console names them: their display name, or their id when they have none (null,
// absent or blank: API.md, "Names"). Never "null".
/**
 * @param {string} id
 * @param {string | null | undefined} name
 * @returns {string}
 */
export function displayName(id, name) {
  return typeof name === 'string' && name.trim() !== '' ? name : id;
}

// A person in a line of text: the name as text (user data, never markup), the id on hover (two
// people may share a name).
/**
 * @param {string} id
 * @param {string | null | undefined} name
 * @returns {HTMLSpanElement}
 */
export function person(id, name) {
  return h('span', {class: 'person', title: id}, displayName(id, name));
}

/** @returns {HTMLElement} */
export const main = () => byId('main');

/**
 * The element of `id`, which index.html has: a missing one is a bug, thrown at once.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error('index.html has no #' + id);
  return node;
}

/** @param {...(Node | null | undefined)} nodes */
export function show(...nodes) {
  main().replaceChildren(
      .../** @type {Node[]} */ (nodes.filter((node) => node !== null && node !== undefined)));
}

/**
 * @param {string} text
 * @param {'info' | 'busy' | 'error' | 'ok'} [kind]
 */
export function message(text, kind = 'info') {
  const box = byId('message');
  box.textContent = text;
  box.className = 'message ' + kind;
  box.hidden = !text;
  box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
}

/**
 * The text of `key` as nodes: a placeholder given a node (a command in <code>) is that node, any
 * other is filled in as t() fills it.
 * @param {string} key
 * @param {Record<string, Node | string | number>} vars
 * @returns {(Node | string)[]}
 */
export function textWith(key, vars) {
  const text = CATALOG[state.language][key] ?? CATALOG.en[key] ?? key;
  return text.split(/\{(\w+)\}/).map((part, i) => {
    if (i % 2 === 0) return part;
    const value = vars[part];
    return value instanceof Node ? value.cloneNode(true) : String(value ?? '');
  });
}

/**
 * @param {unknown} error
 * @returns {string}
 */
export function errorText(error) {
  if (!(error instanceof ApiError)) return t('error.unexpected', {detail: String(error)});
  if (error.code === 'NETWORK') return t('error.network');
  const specific = CATALOG[state.language]['code.' + error.code];
  return specific ? t('code.' + error.code, {detail: error.problem?.detail ?? ''}) :
                    error.problem?.detail ?? t('error.http', {status: error.status});
}

/** @param {import('./api.js').Wait} wait */
export function waitingText({code, seconds}) {
  const key = code === 'LOCK_BUSY' ? 'wait.lock' :
      code === 'NETWORK'           ? 'wait.network' :
                                     'wait.busy';
  return t(key, {seconds});
}

/**
 * @param {string} labelKey
 * @param {HTMLElement} control
 * @param {Node | string | null} [hint]
 */
export function field(labelKey, control, hint) {
  control.id ||= 'f-' + Math.random().toString(36).slice(2);
  return h('div', {}, h('label', { for: control.id
           }, t(labelKey)), control, hint ? h('div', {class: 'meta'}, hint) : null);
}

// A button whose action runs once at a time: disabled, and marked busy, while in flight.
/**
 * @param {string} labelKey
 * @param {string} testid
 * @param {() => Promise<void>} run
 * @param {string} [cls]
 */
export function actionButton(labelKey, testid, run, cls = '') {
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

// Opens the confirmation dialog; resolves true when `confirm` is chosen (Escape, the cancel button
// or a navigation close it as false). `confirmKey` and `cancelKey` name the buttons (Confirm and
// Cancel by default); `focusCancel` puts the focus on cancel, for a choice Enter must not make.
/**
 * @param {string} titleKey
 * @param {Record<string, string | number>} vars
 * @param {Node | null} [body]
 * @param {{confirmKey?: string, cancelKey?: string, focusCancel?: boolean}} [options]
 * @returns {Promise<boolean>}
 */
export function confirmDialog(titleKey, vars, body, options = {}) {
  const {confirmKey = 'action.confirm', cancelKey = 'action.cancel', focusCancel = false} = options;
  const dialog = /** @type {HTMLDialogElement} */ (byId('dialog'));
  byId('dialog-title').textContent = t(titleKey, vars);
  byId('dialog-body').replaceChildren(...(body ? [body] : []));
  return new Promise((resolve) => {
    const confirm =
        h('button', {type: 'submit', value: 'confirm', testid: 'confirm'}, t(confirmKey, vars));
    const cancel =
        h('button', {type: 'submit', value: 'cancel', class: 'secondary', testid: 'cancel'},
          t(cancelKey, vars));
    byId('dialog-actions').replaceChildren(confirm, cancel);
    dialog.returnValue = '';
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'confirm'), {once: true});
    dialog.showModal();
    (focusCancel ? cancel : confirm).focus();
  });
}
