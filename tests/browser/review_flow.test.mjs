// The reviewer's side: the queue oldest first and refreshed as others decide; a double-clicked
// approval whose answer is lost on the way back (one approval, one event); two reviewers deciding
// one review at once in two browsers; the four-eyes rule shown before anyone clicks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  setUp, openConsole, eventually, screenshot,
} from './harness.mjs';
import { CATALOG } from '../../src/console/i18n.js';

const { docgate, browser } = await setUp();
const alice = docgate.token('alice', 'author');

// A document by `token`'s user, submitted; returns its pending review's id.
async function submitted(title, content, token = alice) {
  const created = await docgate.api(token, 'POST', 'api/v1/documents', { title, content });
  assert.equal(created.status, 201, created.text);
  const id = created.json.id;
  const submit = await docgate.api(token, 'POST', `api/v1/documents/${id}/submit`, {},
    { 'Idempotency-Key': `submit-${id}` });
  assert.equal(submit.status, 200, submit.text);
  return { documentId: id, reviewId: submit.json.review.id };
}

// Every event written so far has been delivered; returns how many were.
async function settledEvents() {
  await eventually(async () => (await docgate.metric('docgate_outbox_backlog_events')) === 0,
    'an empty outbox');
  return docgate.metric('docgate_relay_events_published_total');
}

test('a double-clicked approval whose answer is lost is applied once, with one event', async () => {
  const { documentId, reviewId } = await submitted('值班手册 On-call handbook', '第一条：先止血，再排查。\n');
  const before = await settledEvents();
  const page = await openConsole(browser, docgate, docgate.token('bob', 'reviewer'));
  // The first answer is lost: the server applies the approval, the browser sees a network error
  // and retries with the same Idempotency-Key.
  const keys = [];
  let dropped = false;
  await page.route(`**/api/v1/reviews/${reviewId}/approve`, async (route) => {
    keys.push(route.request().headers()['idempotency-key']);
    if (dropped) return route.continue();
    dropped = true;
    await route.fetch();
    return route.abort('connectionreset');
  });
  await page.goto(`${docgate.base}#/reviews/${reviewId}`);
  await page.getByTestId('diff').getByText('先止血').waitFor();  // a first review: the full text
  await screenshot(page, 'review-en');
  await page.getByTestId('comment-input').fill('清楚，通过');
  await page.getByTestId('approve').dblclick();
  await page.getByTestId('confirm').dblclick();
  await page.getByTestId('message').getByText('Approved.').waitFor();

  assert.ok(keys.length >= 2, `the lost answer was retried (${keys.length} requests)`);
  assert.ok(keys.every((key) => key && key === keys[0]), `one key for the intent: ${keys}`);
  const reviews = await docgate.api(alice, 'GET', `api/v1/documents/${documentId}/reviews`);
  assert.deepEqual(reviews.json.items.map((r) => [r.status, r.comment]), [['approved', '清楚，通过']]);
  assert.equal(await settledEvents(), before + 1, 'one document.approved event');
  assert.ok(await docgate.metric('docgate_idempotent_replays_total') >= 1);
  assert.deepEqual(page.errors, []);
});

test('two reviewers deciding one review at once: one wins, the other is told', async () => {
  const { documentId, reviewId } = await submitted('备份策略 Backups', '每天全量备份一次。\n');
  const bob = await openConsole(browser, docgate, docgate.token('bob', 'reviewer'));
  const carol = await openConsole(browser, docgate, docgate.token('carol', 'reviewer'), 'zh-CN');
  for (const page of [bob, carol]) {
    await page.goto(`${docgate.base}#/reviews/${reviewId}`);
    await page.getByTestId('approve').waitFor();
  }
  await bob.getByTestId('approve').click();
  await carol.getByTestId('reason-input').fill('没有写恢复演练');
  await carol.getByTestId('reject').click();
  // Both dialogs open; both confirm in the same instant.
  await Promise.all([bob.getByTestId('confirm').click(), carol.getByTestId('confirm').click()]);

  const done = { bob: CATALOG.en['approve.done'], carol: CATALOG['zh-CN']['reject.done'] };
  const refused = { bob: CATALOG.en['review.alreadyDecided'].split('{state}')[0],
    carol: CATALOG['zh-CN']['review.alreadyDecided'].split('{state}')[0] };
  let texts;
  const outcome = await eventually(async () => {
    texts = { bob: await bob.getByTestId('message').textContent(),
      carol: await carol.getByTestId('message').textContent() };
    const won = Object.keys(done).filter((who) => texts[who] === done[who]);
    const told = Object.keys(done).filter((who) => texts[who].startsWith(refused[who]));
    return won.length === 1 && told.length === 1 ? { won: won[0], texts } : null;
  }, 'one decision and one clear refusal').catch((error) => {
    throw new Error(`${error.message}: ${JSON.stringify(texts)}`);
  });

  const reviews = (await docgate.api(alice, 'GET', `api/v1/documents/${documentId}/reviews`)).json.items;
  assert.equal(reviews.length, 1);
  assert.equal(reviews[0].status, outcome.won === 'bob' ? 'approved' : 'rejected');
  assert.equal(reviews[0].decided_by, outcome.won);
  // The loser's page now shows the decided review, without its buttons.
  const loser = outcome.won === 'bob' ? carol : bob;
  await eventually(async () => (await loser.getByTestId('approve').count()) === 0, 'no buttons');
  await screenshot(loser, 'lost-race');
  assert.deepEqual([...bob.errors, ...carol.errors], []);
});

test('the queue is oldest first and follows decisions made elsewhere', async () => {
  const first = await submitted('队列一 Queue one', '一\n');
  const second = await submitted('队列二 Queue two', '二\n');
  const page = await openConsole(browser, docgate, docgate.token('dave', 'reviewer'));
  await page.getByTestId('nav-queue').click();
  const titles = () => page.getByTestId('queue-item').locator('a').allTextContents();
  await eventually(async () => (await titles()).includes('队列二 Queue two'), 'the queue');
  const listed = await titles();
  assert.ok(listed.indexOf('队列一 Queue one') < listed.indexOf('队列二 Queue two'), listed.join());
  await screenshot(page, 'queue-en');

  const approved = await docgate.api(docgate.token('erin', 'reviewer'), 'POST',
    `api/v1/reviews/${first.reviewId}/approve`, {}, { 'Idempotency-Key': 'queue-approve' });
  assert.equal(approved.status, 200, approved.text);
  await eventually(async () => !(await titles()).includes('队列一 Queue one'),
    'the decided review leaving the open queue');
  assert.ok((await titles()).includes('队列二 Queue two'));
  assert.ok(second.reviewId);
  assert.deepEqual(page.errors, []);
});

test('the queue is drawn from one request: its items carry their titles', async () => {
  const titles = ['单请求一 One request', '单请求二 Two', '单请求三 Three', '单请求四 Four'];
  for (const [i, title] of titles.entries()) await submitted(title, `第${i + 1}段\n`);
  const page = await openConsole(browser, docgate, docgate.token('grace', 'reviewer'));
  // A reviewer may land on the queue: away from it first, so that the click below opens it anew.
  await page.getByTestId('nav-documents').click();
  await page.waitForFunction(() => location.hash.startsWith('#/documents'));
  const requests = [];
  page.on('request', (request) => {
    if (request.method() === 'GET') requests.push(new URL(request.url()).pathname);
  });
  await page.getByTestId('nav-queue').click();
  const shown = () => page.getByTestId('queue-item').locator('a').allTextContents();
  await eventually(async () => {
    const listed = await shown();
    return titles.every((title) => listed.includes(title));
  }, 'the four titles in the queue');
  const queueItems = (await shown()).length;
  assert.ok(queueItems >= titles.length, `${queueItems} items`);
  const lists = requests.filter((path) => path === '/api/v1/reviews');
  const documents = requests.filter((path) => /^\/api\/v1\/documents\/\d+/.test(path));
  assert.equal(lists.length, 1, `one GET of the queue: ${requests.join(' ')}`);
  assert.deepEqual(documents, [], `no GET per item (${queueItems} items)`);
  assert.deepEqual(page.errors, []);
});

test('a reviewer who wrote or edited the version sees why before clicking', async () => {
  const frank = docgate.token('frank', 'author,reviewer');
  const own = await submitted('自审 Own document', '我写的。\n', frank);
  const page = await openConsole(browser, docgate, frank);
  await page.goto(`${docgate.base}#/reviews/${own.reviewId}`);
  await page.getByText('You wrote this document').waitFor();
  assert.equal(await page.getByTestId('approve').isDisabled(), true);
  assert.equal(await page.getByTestId('reject').isDisabled(), true);

  // Grace, an admin, edits Alice's draft and Alice submits it: Grace may not decide it.
  const grace = docgate.token('grace', 'admin');
  const created = await docgate.api(alice, 'POST', 'api/v1/documents', { title: '合写 Shared', content: '甲\n' });
  const edited = await docgate.api(grace, 'PUT', `api/v1/documents/${created.json.id}`,
    { content: '甲\n乙\n' }, { 'If-Match': '"1"' });
  assert.equal(edited.status, 200, edited.text);
  const submit = await docgate.api(alice, 'POST', `api/v1/documents/${created.json.id}/submit`, {},
    { 'Idempotency-Key': 'shared-submit' });
  const gracePage = await openConsole(browser, docgate, grace);
  await gracePage.goto(`${docgate.base}#/reviews/${submit.json.review.id}`);
  await gracePage.getByText('You edited this document').waitFor();
  assert.equal(await gracePage.getByTestId('approve').isDisabled(), true);
  assert.deepEqual([...page.errors, ...gracePage.errors], []);
});
