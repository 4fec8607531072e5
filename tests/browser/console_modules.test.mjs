// The console's modules without a browser: the diff (its parts always rebuild both texts; CJK
// by character, Latin by word; its limits) and the message catalogs (same keys, same
// placeholders, Chinese that reads as written Chinese, the language chosen from the browser's
// list), and the search score's format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diff, tokenize, LIMITS } from '../../src/console/diff.js';
import { CATALOG, LANGUAGES, formatScore, pickLanguage } from '../../src/console/i18n.js';

const rebuilt = (parts, ops) => parts.filter((p) => ops.includes(p.op)).map((p) => p.text).join('');

function checkedDiff(before, after) {
  const result = diff(before, after);
  assert.equal(result.complete, true);
  assert.equal(rebuilt(result.parts, '=-'), before, JSON.stringify([before, after]));
  assert.equal(rebuilt(result.parts, '=+'), after, JSON.stringify([before, after]));
  return result.parts;
}

test('tokens: one per Han character, one per word, whitespace and punctuation apart', () => {
  assert.deepEqual(tokenize('审核通过 the doc, v1!'),
    ['审', '核', '通', '过', ' ', 'the', ' ', 'doc', ',', ' ', 'v1', '!']);
});

test('Chinese changes by character, English by word', () => {
  assert.deepEqual(checkedDiff('文档审核流程\n不变\n', '文档复核流程\n不变\n新增\n'), [
    { op: '=', text: '文档' }, { op: '-', text: '审' }, { op: '+', text: '复' },
    { op: '=', text: '核流程\n不变\n' }, { op: '+', text: '新增\n' },
  ]);
  assert.deepEqual(checkedDiff('The quick brown fox', 'The slow brown cat'), [
    { op: '=', text: 'The ' }, { op: '-', text: 'quick' }, { op: '+', text: 'slow' },
    { op: '=', text: ' brown ' }, { op: '-', text: 'fox' }, { op: '+', text: 'cat' },
  ]);
});

test('any two texts: the parts rebuild both (2,000 random pairs, mixed scripts)', () => {
  let seed = 7;
  const random = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const alphabet = ['a', 'b', ' ', '中', '文', '\n', '，', 'é', '😀'];
  const text = () => Array.from({ length: random(40) }, () => alphabet[random(alphabet.length)]).join('');
  for (let i = 0; i < 2000; i++) checkedDiff(text(), text());
});

test('past the line budget the diff gives way; a long line still diffs by character', () => {
  const lines = (word) => Array.from({ length: LIMITS.lineEdits + 1 }, (_, i) => `${word} ${i}\n`).join('');
  assert.deepEqual(diff(lines('旧'), lines('新')), { complete: false, parts: [] });
  const long = '审'.repeat(50_000) + 'x'.repeat(50_000);
  const parts = checkedDiff(long, long.slice(0, 30_000) + '改' + long.slice(30_001));
  assert.deepEqual(parts.filter((p) => p.op !== '=').map((p) => p.text), ['审', '改']);
});

test('the catalogs have the same keys and the same placeholders', () => {
  assert.deepEqual([...LANGUAGES].sort(), Object.keys(CATALOG).sort());
  const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  for (const key of Object.keys(CATALOG.en)) {
    assert.ok(key in CATALOG['zh-CN'], `zh-CN lacks ${key}`);
    assert.deepEqual(placeholders(CATALOG['zh-CN'][key]), placeholders(CATALOG.en[key]), key);
  }
  assert.deepEqual(Object.keys(CATALOG['zh-CN']).sort(), Object.keys(CATALOG.en).sort());
});

// What a native reader flags in a Chinese message (issue 36, item 10); [] when none.
const HAN = '\\u3400-\\u9fff';
const CJK = `${HAN}\\u3000-\\u303f\\uff00-\\uffef\\u201c\\u201d`;
// Latin words a Chinese sentence keeps: names of products, formats and standards.
const KEPT_WORDS =
  new Set(['docgate', 'JWT', 'URL', 'HTTP', 'JSON', 'UTF-8', 'ASCII', 'ID', 'Markdown']);
// Placeholders filled with someone's text, which may end with its own punctuation.
const FREE_TEXT = /\{(comment|detail|state|title|reason|name)\}[。，、；：？！.,;:?!]/;

function chineseCopyProblems(text) {
  const problems = [];
  const flag = (pattern, what) => {
    const found = text.match(pattern);
    if (found) problems.push(`${what}: "${found[0]}"`);
  };
  flag(/[。，、；：？！]{2}/, 'doubled punctuation');
  flag(FREE_TEXT, 'punctuation after a placeholder that may end with its own');
  flag(new RegExp(`[${CJK}][,.?!:;()]|[,.?!:;()][${CJK}]`), 'half-width punctuation in Chinese');
  flag(new RegExp(`[${HAN}][A-Za-z0-9{]|[A-Za-z0-9}][${HAN}]`),
    'no space between Chinese and Latin or digits');
  flag(/(^|[^—])—([^—]|$)| - /, 'an English dash');
  flag(/`/, 'a backtick (shown as it is)');
  // Latin words outside placeholders and “quotes” (a header name the reader types is quoted).
  const words = text.replace(/\{\w+\}/g, ' ').replace(/“[^”]*”/g, ' ')
    .match(/[A-Za-z][A-Za-z0-9_+-]*/g) ?? [];
  for (const word of words) {
    if (/[A-Za-z].*[A-Za-z]/.test(word) && !KEPT_WORDS.has(word)) problems.push(`English: "${word}"`);
  }
  return problems;
}

test('the Chinese catalog reads as written Chinese', () => {
  for (const [key, text] of Object.entries(CATALOG['zh-CN'])) {
    assert.deepEqual(chineseCopyProblems(text), [], `${key}: ${text}`);
  }
  // A placeholder followed by punctuation, and Markdown, are wrong in English too.
  for (const [key, text] of Object.entries(CATALOG.en)) {
    assert.doesNotMatch(text, FREE_TEXT, key);
    assert.doesNotMatch(text, /`/, key);
  }
  // The check finds what it is for.
  assert.deepEqual(chineseCopyProblems('已通过。。'), ['doubled punctuation: "。。"']);
  assert.equal(chineseCopyProblems('通过{comment}。').length, 2);
  assert.deepEqual(chineseCopyProblems('确定吗?'), ['half-width punctuation in Chinese: "吗?"']);
  assert.deepEqual(chineseCopyProblems('title 的长度'), ['English: "title"']);
  assert.deepEqual(chineseCopyProblems('通过“If-Match”请求头发送 JWT'), []);
  assert.equal(chineseCopyProblems('已通过 — 很好').length, 1);
});

test('the language: the remembered choice, else the browser list, else English', () => {
  assert.equal(pickLanguage('en', ['zh-CN']), 'en');
  assert.equal(pickLanguage(null, ['zh-CN', 'en']), 'zh-CN');
  assert.equal(pickLanguage(null, ['zh']), 'zh-CN');
  assert.equal(pickLanguage(null, ['zh-Hans-CN']), 'zh-CN');
  assert.equal(pickLanguage(null, ['fr-FR', 'en-GB']), 'en');
  assert.equal(pickLanguage(null, ['fr-FR']), 'en');
  assert.equal(pickLanguage('klingon', []), 'en');
});

test('a search score too small for three decimals is never shown as zero', () => {
  assert.equal(formatScore(1e-6), '1.00e-6');
  assert.equal(formatScore(0.00099), '9.90e-4');
  assert.equal(formatScore(0.001), '0.001');
  assert.equal(formatScore(0.5), '0.500');
  assert.equal(formatScore(12.3456), '12.346');
  assert.equal(formatScore(0), '0');
});
