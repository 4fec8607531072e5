// Building the page: every node with textContent, never innerHTML (titles, contents, comments and
// snippets are user text); the message line, buttons that run once at a time, the dialog.

import {ApiError} from './api.js';
import {CATALOG} from './i18n.js';
import {state, t} from './state.js';

export function h(tag, props = {}, ...children) {
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

export function badge(status, testid) {
  return h('span', {class: 'badge ' + status, testid}, t('status.' + status));
}

export const main = () => document.getElementById('main');

export function show(...nodes) {
  main().replaceChildren(...nodes.filter((node) => node !== null && node !== undefined));
}

export function message(text, kind = 'info') {
  const box = document.getElementById('message');
  box.textContent = text;
  box.className = 'message ' + kind;
  box.hidden = !text;
  box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
}

export function errorText(error) {
  if (!(error instanceof ApiError)) return t('error.unexpected', {detail: String(error)});
  if (error.code === 'NETWORK') return t('error.network');
  const specific = CATALOG[state.language]['code.' + error.code];
  return specific ? t('code.' + error.code, {detail: error.problem?.detail ?? ''}) :
                    error.problem?.detail ?? t('error.http', {status: error.status});
}

export function waitingText({code, seconds}) {
  const key = code === 'LOCK_BUSY' ? 'wait.lock' :
      code === 'NETWORK'           ? 'wait.network' :
                                     'wait.busy';
  return t(key, {seconds});
}

export function field(labelKey, control, hint) {
  control.id ||= 'f-' + Math.random().toString(36).slice(2);
  return h('div', {}, h('label', { for: control.id
           }, t(labelKey)), control, hint ? h('div', {class: 'meta'}, hint) : null);
}

// A button whose action runs once at a time: disabled, and marked busy, while in flight.
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

// Opens the confirmation dialog; resolves true when `confirm` is chosen.
export function confirmDialog(titleKey, vars, body) {
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
