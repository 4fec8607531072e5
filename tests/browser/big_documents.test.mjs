// Bad input for the page: a document of 1 MiB, one of 10,000 lines rewritten whole, one line of
// 100,000 characters. Each review page renders its diff (or, past the diff's limit, the full text
// with a note saying so) and the page still answers afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  setUp, openConsole, eventually,
} from './harness.mjs';
import { CATALOG } from '../../src/console/i18n.js';
import { LIMITS } from '../../src/console/diff.js';

const { docgate, browser } = await setUp({ DOCGATE_HTTP_BODY_LIMIT: String(4 << 20) });
const alice = docgate.token('alice', 'author');
const bob = docgate.token('bob', 'reviewer');

// Approved with `before`, then `after` submitted: the review of the change.
async function changeUnderReview(title, before, after) {
  const created = await docgate.api(alice, 'POST', 'api/v1/documents', { title, content: before });
  assert.equal(created.status, 201, created.text.slice(0, 300));
  const id = created.json.id;
  const first = await docgate.api(alice, 'POST', `api/v1/documents/${id}/submit`, {}, { 'Idempotency-Key': `a${id}` });
  const approved = await docgate.api(bob, 'POST', `api/v1/reviews/${first.json.review.id}/approve`, {},
    { 'Idempotency-Key': `b${id}` });
  assert.equal(approved.status, 200, approved.text);
  const edited = await docgate.api(alice, 'PUT', `api/v1/documents/${id}`, { content: after },
    { 'If-Match': `"${approved.json.document.version}"` });
  assert.equal(edited.status, 200, edited.text.slice(0, 300));
  const second = await docgate.api(alice, 'POST', `api/v1/documents/${id}/submit`, {}, { 'Idempotency-Key': `c${id}` });
  assert.equal(second.status, 200, second.text);
  return { documentId: id, reviewId: second.json.review.id };
}

async function openReview(reviewId) {
  const page = await openConsole(browser, docgate, bob);
  await page.goto(`${docgate.base}#/reviews/${reviewId}`);
  await page.getByTestId('diff').waitFor();
  await page.getByTestId('approve').waitFor();
  // Still answering: a frame is painted and a click lands.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
  await page.getByTestId('comment-input').fill('ok');
  return page;
}

test('a 1 MiB document with a few changed lines: the diff shows them', async () => {
  const line = (i) => `第 ${i} 行：审核流程说明 line ${i} of the handbook, padded to be long enough.\n`;
  let before = '';
  for (let i = 0, bytes = 0; bytes < 1 << 20; i++) {
    before += line(i);
    bytes += Buffer.byteLength(line(i));
  }
  const after = before.replace('第 100 行：审核', '第 100 行：复核').replace('line 9000 of', 'line 9000 (revised) of');
  const { reviewId } = await changeUnderReview('一兆字节 One MiB', before, after);
  const page = await openReview(reviewId);
  const diff = page.getByTestId('diff');
  assert.deepEqual((await diff.locator('ins').allTextContents()).map((t) => t.trim()), ['复', '(revised)']);
  assert.deepEqual(await diff.locator('del').allTextContents(), ['审']);
  assert.deepEqual(page.errors, []);
});

test('10,000 lines all rewritten: past the limit, the full text and a note', async () => {
  const before = Array.from({ length: 10_000 }, (_, i) => `旧的第 ${i} 行\n`).join('');
  const after = Array.from({ length: 10_000 }, (_, i) => `新的第 ${i} 行 rewritten\n`).join('');
  const { reviewId } = await changeUnderReview('一万行 Ten thousand lines', before, after);
  const page = await openReview(reviewId);
  await page.getByText(CATALOG.en['diff.tooLarge'].replace('{lines}', String(LIMITS.lineEdits))).waitFor();
  await page.getByTestId('diff').getByText('新的第 9999 行 rewritten').waitFor();
  assert.deepEqual(page.errors, []);
});

test('one line of 100,000 characters with one character changed', async () => {
  const before = '审'.repeat(50_000) + 'x'.repeat(50_000);
  const after = before.slice(0, 30_000) + '改' + before.slice(30_001);
  const { reviewId, documentId } = await changeUnderReview('长行 Long line', before, after);
  const page = await openReview(reviewId);
  const diff = page.getByTestId('diff');
  const short = (texts) => texts.map((text) => (text.length > 80 ? `${text.length} characters` : text));
  assert.deepEqual(short(await diff.locator('ins').allTextContents()), ['改']);
  assert.deepEqual(short(await diff.locator('del').allTextContents()), ['审']);
  // The author's editor opens it too.
  const author = await openConsole(browser, docgate, alice);
  await author.goto(`${docgate.base}#/documents/${documentId}`);
  await eventually(async () => (await author.getByText('审审审').count()) > 0, 'the long line shown');
  assert.deepEqual([...page.errors, ...author.errors], []);
});
