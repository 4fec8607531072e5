// People by name (API.md, "Names"): the console names the author, the submitter and the decider by
// their display names, each with the id on hover (a `title`), and the header names the signed-in
// user as GET /api/v1/me does (the `current-user` test id), asked once per sign-in. A user whose
// token has no name is shown by id, never as "null"; a name is text, never markup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setUp, openConsole, idInUrl, eventually } from './harness.mjs';
import { CATALOG } from '../../src/console/i18n.js';

const zh = CATALOG['zh-CN'];
const en = CATALOG.en;
const { docgate, browser } = await setUp();
const zhangsan = docgate.token('zhangsan', 'author', [], { name: '张三' });
const lisi = docgate.token('lisi', 'reviewer', [], { name: '李四' });

// A catalog text with its placeholders filled in, as the console's t() does.
const fill = (text, vars) => text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name]));

// The header's signed-in line once it reads `text`, with `id` on hover, and in it the
// `current-user` element holding the name alone.
async function expectCurrentUser(page, text, id, name) {
  const line = page.locator('#who');
  let shown;
  await eventually(async () => (shown = await line.textContent()) === text,
    `the header to read ${text}`).catch((error) => {
    throw new Error(`${error.message}; it reads ${shown}`);
  });
  assert.equal(await line.getAttribute('title'), id);
  const element = page.getByTestId('current-user');
  assert.equal(await element.textContent(), name);
  assert.equal(await element.isVisible(), true);
}

// Every element of `scope` with `id` on hover, once there are at least `count`: their texts.
async function namesOf(scope, id, count = 1) {
  const found = scope.locator(`[title="${id}"]`);
  await eventually(async () => (await found.count()) >= count, `${count} × ${id} on hover`);
  return found.allTextContents();
}

// What the page shows as text (not what it holds in attributes): no id where a name is known,
// never "null".
async function visibleText(page) {
  return page.locator('body').innerText();
}

// A document by `token`'s user, created and submitted through the API; its ids.
async function submitted(token, title) {
  const created = await docgate.api(token, 'POST', 'api/v1/documents', { title, content: '正文。\n' });
  assert.equal(created.status, 201, created.text);
  const submit = await docgate.api(token, 'POST', `api/v1/documents/${created.json.id}/submit`, {},
    { 'Idempotency-Key': `names-${created.json.id}` });
  assert.equal(submit.status, 200, submit.text);
  return { documentId: created.json.id, reviewId: submit.json.review.id };
}

test('the author, submitter and decider are shown by name, their ids on hover', async () => {
  // 张三 writes and submits in Chinese.
  const author = await openConsole(browser, docgate, zhangsan, 'zh-CN');
  await expectCurrentUser(author, fill(zh.who, { name: '张三', roles: zh['role.author']}), 'zhangsan', '张三');
  await author.getByTestId('new-document').click();
  const title = '交接班记录 Handover notes';
  await author.getByTestId('title-input').fill(title);
  await author.getByTestId('content-input').fill('交接前核对告警。\n');
  await author.getByTestId('save').click();
  await author.getByTestId('submit').waitFor();
  await author.getByTestId('submit').click();
  await author.getByTestId('withdraw').waitFor();
  const documentId = idInUrl(author);
  // The document's author and the history's submitter.
  assert.deepEqual(await namesOf(author.locator('main'), 'zhangsan', 2), ['张三', '张三']);

  // 李四 finds it in the queue under 张三's name, in English.
  const reviewer = await openConsole(browser, docgate, lisi, 'en-US');
  await expectCurrentUser(reviewer, fill(en.who, { name: '李四', roles: en['role.reviewer']}), 'lisi', '李四');
  await reviewer.getByTestId('nav-queue').click();
  const item = reviewer.getByTestId('queue-item').filter({ hasText: title });
  await item.waitFor();
  assert.deepEqual(await namesOf(item, 'zhangsan'), ['张三']);
  assert.doesNotMatch(await item.innerText(), /zhangsan/);

  // The review page names the author and the submitter; 李四 approves and is named the decider.
  await item.getByRole('link').click();
  await reviewer.getByTestId('approve').waitFor();
  assert.deepEqual(await namesOf(reviewer.locator('main'), 'zhangsan', 2), ['张三', '张三']);
  await reviewer.getByTestId('approve').click();
  await reviewer.getByTestId('confirm').click();
  await reviewer.getByTestId('message').getByText(en['approve.done']).waitFor();
  assert.deepEqual(await namesOf(reviewer.locator('main'), 'lisi'), ['李四']);
  const decided = await docgate.api(lisi, 'GET', `api/v1/documents/${documentId}/reviews`);
  assert.deepEqual(decided.json.items.map((r) => [r.status, r.decided_by, r.decided_by_name]),
    [['approved', 'lisi', '李四']]);

  // 张三's history names 李四 as the decider (the page loaded again: the session kept in the tab).
  await author.reload();
  await author.getByTestId('status-badge').getByText(zh['status.approved']).waitFor();
  assert.deepEqual(await namesOf(author.locator('main table'), 'lisi'), ['李四']);
  assert.deepEqual(await namesOf(author.locator('main table'), 'zhangsan'), ['张三']);
  await expectCurrentUser(author, fill(zh.who, { name: '张三', roles: zh['role.author']}), 'zhangsan', '张三');

  for (const page of [author, reviewer]) {
    const text = await visibleText(page);
    assert.doesNotMatch(text, /zhangsan|lisi|null/, text);
  }
  assert.deepEqual([...author.errors, ...reviewer.errors], []);
});

test('the signed-in user is asked of the server once per sign-in', async () => {
  const page = await openConsole(browser, docgate, lisi, 'en-US');
  await expectCurrentUser(page, fill(en.who, { name: '李四', roles: en['role.reviewer']}), 'lisi', '李四');
  const asked = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/api/v1/me') asked.push(request.url());
  });
  for (const view of ['nav-documents', 'nav-queue', 'nav-search', 'nav-documents']) {
    await page.getByTestId(view).click();
    await page.waitForFunction((hash) => location.hash.startsWith(hash),
      `#/${view.slice('nav-'.length)}`);
  }
  await page.getByTestId('language-switch').selectOption('zh-CN');
  await expectCurrentUser(page, fill(zh.who, { name: '李四', roles: zh['role.reviewer']}), 'lisi', '李四');
  assert.deepEqual(asked, [], 'no new GET /api/v1/me while the session lasts');
  // A page loaded anew (the session kept in the tab) asks once.
  await page.reload();
  await page.getByTestId('nav-queue').waitFor();
  await expectCurrentUser(page, fill(zh.who, { name: '李四', roles: zh['role.reviewer']}), 'lisi', '李四');
  assert.equal(asked.length, 1, asked.join(' '));
  assert.deepEqual(page.errors, []);
});

test('a user whose token has no name is shown by id, never as null', async () => {
  const wangwu = docgate.token('wangwu', 'author', [], { name: null });
  const title = '无名之作 Anonymous work';
  const { documentId } = await submitted(wangwu, title);
  const me = await docgate.api(wangwu, 'GET', 'api/v1/me');
  assert.deepEqual(me.json, { id: 'wangwu', name: null, roles: ['author'] });

  const own = await openConsole(browser, docgate, wangwu, 'en-US');
  await expectCurrentUser(own, fill(en.who, { name: 'wangwu', roles: en['role.author']}), 'wangwu', 'wangwu');
  await own.goto(`${docgate.base}#/documents/${documentId}`);
  await own.getByTestId('withdraw').waitFor();
  assert.deepEqual(await namesOf(own.locator('main'), 'wangwu', 2), ['wangwu', 'wangwu']);

  const reviewer = await openConsole(browser, docgate, lisi, 'zh-CN');
  await reviewer.getByTestId('nav-queue').click();
  const item = reviewer.getByTestId('queue-item').filter({ hasText: title });
  await item.waitFor();
  assert.deepEqual(await namesOf(item, 'wangwu'), ['wangwu']);
  for (const page of [own, reviewer]) assert.doesNotMatch(await visibleText(page), /null/);
  assert.deepEqual([...own.errors, ...reviewer.errors], []);
});

test('a name is shown as text, never read as markup', async () => {
  // The console's CSP would stop these handlers anyway: no <img> at all is the real check.
  const authorName = '<img src=x onerror=window.__xss=1>';
  const reviewerName = '<img src=y onerror=window.__xss=2><b>审核</b>';
  const mallory = docgate.token('mallory', 'author', [], { name: authorName });
  const trudy = docgate.token('trudy', 'reviewer', [], { name: reviewerName });
  const title = '标记注入 Markup in names';
  const { documentId, reviewId } = await submitted(mallory, title);

  // In the queue, before anyone decides.
  const reviewer = await openConsole(browser, docgate, lisi, 'en-US');
  await reviewer.getByTestId('nav-queue').click();
  const item = reviewer.getByTestId('queue-item').filter({ hasText: title });
  await item.waitFor();
  assert.deepEqual(await namesOf(item, 'mallory'), [authorName]);

  const rejected = await docgate.api(trudy, 'POST', `api/v1/reviews/${reviewId}/reject`,
    { reason: '名字里有标记' }, { 'Idempotency-Key': `names-reject-${reviewId}` });
  assert.equal(rejected.status, 200, rejected.text);

  // The review page: author and submitter, and the decider in the note.
  await reviewer.goto(`${docgate.base}#/reviews/${reviewId}`);
  await reviewer.getByText('名字里有标记', { exact: false }).waitFor();
  assert.deepEqual(await namesOf(reviewer.locator('main'), 'mallory', 2), [authorName, authorName]);
  assert.deepEqual(await namesOf(reviewer.locator('main'), 'trudy'), [reviewerName]);

  // The author's own page: the header, the document's author, the history's both people.
  const author = await openConsole(browser, docgate, mallory, 'zh-CN');
  await expectCurrentUser(author, fill(zh.who, { name: authorName, roles: zh['role.author']}), 'mallory', authorName);
  await author.goto(`${docgate.base}#/documents/${documentId}`);
  await author.getByTestId('status-badge').getByText(zh['status.rejected']).waitFor();
  assert.deepEqual(await namesOf(author.locator('main'), 'mallory', 2), [authorName, authorName]);
  assert.deepEqual(await namesOf(author.locator('main table'), 'trudy'), [reviewerName]);

  for (const page of [reviewer, author]) {
    assert.equal(await page.evaluate(() => window.__xss), undefined);
    assert.equal(await page.locator('img, b').count(), 0, 'no element made of a name');
    assert.ok((await visibleText(page)).includes(authorName));
  }
  assert.deepEqual([...reviewer.errors, ...author.errors], []);
});
