// The console's modules without a browser: the diff (its parts always rebuild both texts; CJK
// by character, Latin by word; its limits) and the message catalogs (same keys, same
// placeholders, the language chosen from the browser's list).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diff, tokenize, LIMITS } from '../../src/console/diff.js';
import { CATALOG, LANGUAGES, pickLanguage } from '../../src/console/i18n.js';

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

test('the language: the remembered choice, else the browser list, else English', () => {
  assert.equal(pickLanguage('en', ['zh-CN']), 'en');
  assert.equal(pickLanguage(null, ['zh-CN', 'en']), 'zh-CN');
  assert.equal(pickLanguage(null, ['zh']), 'zh-CN');
  assert.equal(pickLanguage(null, ['zh-Hans-CN']), 'zh-CN');
  assert.equal(pickLanguage(null, ['fr-FR', 'en-GB']), 'en');
  assert.equal(pickLanguage(null, ['fr-FR']), 'en');
  assert.equal(pickLanguage('klingon', []), 'en');
});
