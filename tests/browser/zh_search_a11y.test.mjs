// The whole flow in zh-CN (the catalog's strings, not English), the language switch remembered,
// search with its highlights, keyboard-only use, and axe-core on every page: no serious or
// critical violation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  setUp, openConsole, idInUrl, eventually, screenshot,
  seriousViolations,
} from './harness.mjs';
import { CATALOG } from '../../src/console/i18n.js';

const zh = CATALOG['zh-CN'];
const en = CATALOG.en;
const { docgate, browser } = await setUp();

async function expectAccessible(page, where) {
  assert.deepEqual(await seriousViolations(page), [], `axe on ${where}`);
}

test('the flow in Chinese: write, submit, review, approve, search with highlights', async () => {
  const author = await openConsole(browser, docgate, docgate.token('alice', 'author'), 'zh-CN');
  assert.equal(await author.getByTestId('nav-documents').textContent(), zh['nav.documents']);
  assert.equal(await author.getByTestId('language-switch').inputValue(), 'zh-CN');
  assert.equal(await author.evaluate(() => document.documentElement.lang), 'zh-CN');
  await expectAccessible(author, 'the empty document list');

  await author.getByTestId('new-document').click();
  await author.getByTestId('title-input').fill('故障复盘模板');
  await author.getByTestId('content-input').fill(
    '## 复盘流程\n\n复盘会议在故障恢复后四十八小时内召开。\n记录时间线、根因和改进项。\n');
  await expectAccessible(author, 'the editor');
  await author.getByTestId('save').click();
  await author.getByTestId('submit').waitFor();
  await author.getByTestId('submit').click();
  await author.getByTestId('message').getByText(zh['submit.done']).waitFor();
  await author.getByTestId('withdraw').waitFor();  // the page drawn again, as submitted
  assert.equal(await author.getByTestId('status-badge').textContent(), zh['status.pending_review']);
  const documentId = idInUrl(author);
  await expectAccessible(author, 'a submitted document');
  await screenshot(author, 'document-zh');

  const reviewer = await openConsole(browser, docgate, docgate.token('bob', 'reviewer'), 'zh-CN');
  await reviewer.getByTestId('nav-queue').click();
  await reviewer.getByTestId('queue-item').first().waitFor();
  await expectAccessible(reviewer, 'the queue');
  await screenshot(reviewer, 'queue-zh');
  await reviewer.getByTestId('queue-item').getByText('故障复盘模板').click();
  await reviewer.getByTestId('approve').waitFor();
  assert.equal(await reviewer.getByTestId('approve').textContent(), zh['action.approve']);
  await expectAccessible(reviewer, 'the review page');
  await screenshot(reviewer, 'review-zh');
  await reviewer.getByTestId('reject').click();  // no reason: told, nothing sent
  await reviewer.getByTestId('message').getByText(zh['reject.needsReason']).waitFor();
  await reviewer.getByTestId('comment-input').fill('结构清楚');
  await reviewer.getByTestId('approve').click();
  await expectAccessible(reviewer, 'the confirmation dialog');
  await reviewer.getByTestId('confirm').click();
  await reviewer.getByTestId('message').getByText(zh['approve.done']).waitFor();

  await eventually(async () => (await docgate.api(docgate.token('alice', 'author'), 'GET',
    `api/v1/documents/${documentId}`)).json.ingest_status === 'done', 'ingestion');
  await reviewer.getByTestId('nav-search').click();
  await reviewer.getByTestId('search-input').fill('根因');
  await reviewer.getByTestId('search-input').press('Enter');
  const result = reviewer.getByTestId('search-result').first();
  await result.waitFor();
  assert.deepEqual(await result.locator('mark').allTextContents(), ['根因']);
  // Markdown (the default format) is chunked by its headings: the hit names its section.
  assert.equal(await result.getByTestId('search-section').textContent(), '复盘流程');
  assert.equal(await result.getByRole('link').first().getAttribute('href'), `#/documents/${documentId}`);
  await expectAccessible(reviewer, 'search results');
  await screenshot(reviewer, 'search-zh');
  assert.deepEqual([...author.errors, ...reviewer.errors], []);
});

test('the language switch changes every string and is remembered', async () => {
  const page = await openConsole(browser, docgate, docgate.token('carol', 'reviewer'), 'zh-CN');
  await page.getByTestId('language-switch').selectOption('en');
  await page.getByTestId('nav-queue').getByText(en['nav.queue']).waitFor();
  await page.reload();
  await page.getByTestId('nav-queue').getByText(en['nav.queue']).waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  // The API localises too: the console asks in the language shown.
  await page.getByTestId('nav-search').click();
  await page.getByTestId('search-input').fill('root cause');
  await page.getByTestId('search-input').press('Enter');
  await page.getByText(/0 results/).waitFor();
  await screenshot(page, 'search-en');
  await page.getByTestId('language-switch').selectOption('zh-CN');
  await page.getByTestId('nav-queue').getByText(zh['nav.queue']).waitFor();
  assert.deepEqual(page.errors, []);
});

test('keyboard only: sign in, move between pages, open a document', async () => {
  const page = await openConsole(browser, docgate, null, 'en-US');
  await expectAccessible(page, 'sign-in');
  // The token field has the focus on arrival; Tab reaches the button, Enter signs in.
  assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'token-input');
  await page.keyboard.insertText(docgate.token('alice', 'author'));
  for (let i = 0; i < 10; i++) {
    if (await page.evaluate(() => document.activeElement.dataset.testid) === 'sign-in') break;
    await page.keyboard.press('Tab');
  }
  await page.keyboard.press('Enter');
  await page.getByTestId('document-row').first().waitFor();
  // Tab to the first document's link and follow it.
  for (let i = 0; i < 30; i++) {
    const inRow = await page.evaluate(() => !!document.activeElement.closest('[data-testid="document-row"]'));
    if (inRow) break;
    await page.keyboard.press('Tab');
  }
  await page.keyboard.press('Enter');
  await page.getByTestId('title-input').or(page.getByTestId('status-badge')).first().waitFor();
  assert.match(page.url(), /#\/documents\/\d+$/);
  assert.deepEqual(page.errors, []);
});

test('the accessibility check is not vacuous: a planted violation is found', async () => {
  const page = await openConsole(browser, docgate, null, 'en-US');
  await page.evaluate(() => {
    const input = document.createElement('input');  // a control without a label
    document.querySelector('main').append(input);
  });
  const found = await seriousViolations(page);
  assert.ok(found.some((v) => v.startsWith('label ')), found.join('\n'));
});
