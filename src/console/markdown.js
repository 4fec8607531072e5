// @ts-check
// A Markdown document as it reads (API.md v1.2 "Formats and import", ADR 0015): markdown-it
// renders CommonMark with tables and fenced code, without raw HTML; DOMPurify keeps only plain
// markup from what it renders; the page receives a DocumentFragment, never innerHTML. Links go to
// http, https and mailto only, and open in a new tab without a referrer. An image is a button until
// it is clicked: nothing is fetched from another site before that (only https images load then, the
// CSP's img-src; an http one is offered as a link). Both packages come from npm, pinned by
// src/console/packages/package-lock.json, and are served by the binary beside the console's
// modules; they are loaded on the first rendering, so a page without Markdown never fetches them.

import {h} from './dom.js';
import {t} from './state.js';

/**
 * What the console uses of markdown-it and DOMPurify.
 * @typedef {{type: string, attrGet(name: string): string | null, attrJoin(name: string,
 *   value: string): void, attrs: [string, string][] | null}} Token
 * @typedef {{
 *   render(source: string): string,
 *   validateLink: (url: string) => boolean,
 *   core: {ruler: {push(name: string, rule: (state: {tokens: Token[]}) => void): void}}
 * }} MarkdownIt
 * @typedef {{sanitize(html: string, options: Record<string, unknown>): DocumentFragment}} Sanitizer
 * @typedef {{markdown: MarkdownIt, sanitizer: Sanitizer}} Renderer
 */

// The packages' modules, named by cmake/ConsolePackages.cmake. Held in variables so that the type
// checker does not look for them among the sources (their types are the typedefs above).
const MARKDOWN_IT_MODULE = './vendor-markdown-it.mjs';
const DOMPURIFY_MODULE = './vendor-dompurify.mjs';

// http, https and mailto: anything else (javascript:, data:, vbscript:, file:, a path on this
// site) is not a link.
const ALLOWED_LINK = /^(?:https?:\/\/|mailto:)/i;

// Tags DOMPurify may keep: what markdown-it writes for CommonMark, tables and fenced code, and
// nothing that runs, embeds, styles or submits.
const ALLOWED_TAGS = [
  'a',  'blockquote', 'br',    'code',  'del', 'em', 'h1',    'h2', 'h3',
  'h4', 'h5',         'h6',    'hr',    'img', 'li', 'ol',    'p',  'pre',
  's',  'strong',     'table', 'tbody', 'td',  'th', 'thead', 'tr', 'ul',
];
const ALLOWED_ATTR = ['alt', 'class', 'href', 'src', 'start', 'title'];

/** @type {Promise<Renderer> | null} */
let loading = null;

/** @returns {Promise<Renderer>} */
function renderer() {
  loading ??= Promise.all([import(MARKDOWN_IT_MODULE), import(DOMPURIFY_MODULE)])
                  .then(([markdownModule, purifyModule]) => {
                    /** @type {MarkdownIt} */
                    const markdown =
                        markdownModule.default('default', {html: false, linkify: false});
                    markdown.validateLink = (url) => ALLOWED_LINK.test(url.trim());
                    markdown.core.ruler.push('docgate_alignment', alignmentAsClass);
                    return {markdown, sanitizer: /** @type {Sanitizer} */ (purifyModule.default)};
                  })
                  .catch((error) => {
                    loading = null;  // a later page tries again
                    throw error;
                  });
  return loading;
}

// A table column's alignment as a class (align-left, align-center, align-right) instead of the
// style attribute markdown-it writes: the CSP refuses style attributes, and reports each one even
// on markup that is only parsed.
/** @param {{tokens: Token[]}} state */
function alignmentAsClass(state) {
  for (const token of state.tokens) {
    if (token.type !== 'th_open' && token.type !== 'td_open') continue;
    const align = /^text-align:(left|center|right)$/.exec(token.attrGet('style') ?? '');
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
    if (align) token.attrJoin('class', 'align-' + align[1]);
  }
}

/**
 * `source` rendered and sanitized, links and images made safe to show.
 * @param {Renderer} renderer
 * @param {string} source
 * @returns {DocumentFragment}
 */
function renderFragment({markdown, sanitizer}, source) {
  const fragment = sanitizer.sanitize(markdown.render(source), {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOWED_URI_REGEXP: ALLOWED_LINK,
    RETURN_DOM_FRAGMENT: true,
  });
  for (const link of fragment.querySelectorAll('a')) {
    if (!ALLOWED_LINK.test(link.getAttribute('href') ?? '')) {
      link.replaceWith(...link.childNodes);
      continue;
    }
    link.target = '_blank';
    link.rel = 'noopener noreferrer nofollow';
  }
  for (const image of fragment.querySelectorAll('img')) image.replaceWith(imageOnClick(image));
  return fragment;
}

// An image as a button naming it and its site; the click loads it (https) or opens it (http).
/**
 * @param {HTMLImageElement} image
 * @returns {Node}
 */
function imageOnClick(image) {
  const source = image.getAttribute('src') ?? '';
  const alt = image.getAttribute('alt') ?? '';
  /** @type {URL | null} */
  let url = null;
  try {
    url = new URL(source);
  } catch {
    url = null;
  }
  if (!url || !/^https?:$/.test(url.protocol)) return document.createTextNode(alt);
  const label =
      t('rendered.image', {alt: alt || url.pathname.split('/').pop() || url.host, host: url.host});
  if (url.protocol === 'http:') {
    return h('a', {href: url.href, target: '_blank', rel: 'noopener noreferrer nofollow'}, label);
  }
  const button =
      h('button', {type: 'button', class: 'secondary small', testid: 'show-image'}, label);
  button.addEventListener('click', () => {
    button.replaceWith(h('img', {src: url.href, alt, referrerpolicy: 'no-referrer'}));
  }, {once: true});
  return button;
}

/**
 * A region (`rendered` test id) that shows `source` rendered once the packages are loaded, or says
 * why it cannot. `label` names the region for screen readers.
 * @param {string} source
 * @param {string} label
 * @returns {HTMLElement}
 */
export function renderedView(source, label) {
  const region =
      h('div', {
        class: 'rendered',
        testid: 'rendered',
        tabindex: 0,
        role: 'region',
        'aria-label': label,
        'aria-busy': 'true'
      },
        h('p', {class: 'meta'}, t('rendered.loading')));
  showRendered(region, source);
  return region;
}

/**
 * Renders `source` into `region` (replacing what it shows): the editor's preview calls it again
 * as the text changes.
 * @param {HTMLElement} region
 * @param {string} source
 * @returns {Promise<void>}
 */
export async function showRendered(region, source) {
  try {
    const fragment = renderFragment(await renderer(), source);
    region.replaceChildren(fragment);
  } catch (error) {
    region.replaceChildren(h('p', {class: 'note'}, t('rendered.unavailable')));
    console.error('docgate: the Markdown renderer could not be loaded', error);
  } finally {
    region.removeAttribute('aria-busy');
  }
}
