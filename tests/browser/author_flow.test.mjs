// The author's flow end to end in the console (English): sign in by pasting a token, write,
// save, a 412 shown as a diff, submit (clicked twice: one review), withdraw, a rejection's reason
// in the history, the approved preview and its ingestion; sign-out and an expired session; a
// sign-in link never silently replaces the session open in the tab, and an expired one says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  setUp, openConsole, idInUrl, eventually, screenshot, PATIENCE_MS, seriousViolations,
} from './harness.mjs';

const { docgate, browser } = await setUp();

test('an author writes, resolves a conflict, submits, withdraws and sees the decisions', async () => {
  const alice = docgate.token('alice', 'author');
  const bob = docgate.token('bob', 'reviewer');
  const page = await openConsole(browser, docgate, null);
  await screenshot(page, 'signin-en');

  // Sign in by pasting the token.
  await page.getByTestId('token-input').fill(alice);
  await page.getByTestId('sign-in').click();
  await page.getByTestId('new-document').click();

  await page.getByTestId('title-input').fill('发布流程 Release process');
  await page.getByTestId('content-input').fill('第一步：冻结分支。\nStep two: tag the release.\n');
  await page.getByTestId('save').click();
  await page.getByTestId('submit').waitFor();
  const id = idInUrl(page);
  const saved = await docgate.api(alice, 'GET', `api/v1/documents/${id}/content`);
  assert.equal(saved.json.content, '第一步：冻结分支。\nStep two: tag the release.\n');

  // Someone saves in between: the console's If-Match fails and it shows what changed.
  const current = await docgate.api(alice, 'GET', `api/v1/documents/${id}`);
  const theirs = await docgate.api(alice, 'PUT', `api/v1/documents/${id}`,
    { content: '第一步：冻结主干。\nStep two: tag the release.\n' },
    { 'If-Match': `"${current.json.version}"` });
  assert.equal(theirs.status, 200, theirs.text);
  await page.getByTestId('content-input').fill('第一步：冻结分支。\nStep two: tag and sign the release.\n');
  await page.getByTestId('save').click();
  const diff = page.getByTestId('diff');
  await diff.waitFor();
  // From the author's text to the saved one: characters for Chinese (分支 against 主干, the
  // rest of the line equal), words for English (" and sign").
  assert.deepEqual(await diff.locator('del').allTextContents(), ['分支', ' and sign']);
  assert.deepEqual(await diff.locator('ins').allTextContents(), ['主干']);
  assert.match(await page.getByTestId('message').textContent(), /version/i);
  await screenshot(page, 'conflict-en');
  await page.getByRole('button', { name: 'Keep mine' }).click();
  await page.getByTestId('save').click();
  await eventually(async () => (await docgate.api(alice, 'GET', `api/v1/documents/${id}/content`))
    .json.content === '第一步：冻结分支。\nStep two: tag and sign the release.\n', 'the kept text saved');

  // Submit, clicked twice as impatient authors do: one review.
  await page.getByTestId('submit').waitFor();
  await page.getByTestId('submit').dblclick();
  await page.getByTestId('withdraw').waitFor();
  assert.equal(await page.getByTestId('status-badge').textContent(), 'Pending review');
  let reviews = await docgate.api(alice, 'GET', `api/v1/documents/${id}/reviews`);
  assert.equal(reviews.json.items.length, 1, reviews.text);

  // Withdraw: a draft again.
  await page.getByTestId('withdraw').click();
  await page.getByTestId('submit').waitFor();
  assert.equal(await page.getByTestId('status-badge').textContent(), 'Draft');

  // Submitted again and rejected with a reason: the history shows it.
  await page.getByTestId('submit').click();
  await page.getByTestId('withdraw').waitFor();
  reviews = await docgate.api(alice, 'GET', `api/v1/documents/${id}/reviews`);
  const pending = reviews.json.items.find((r) => r.status === 'pending');
  const rejected = await docgate.api(bob, 'POST', `api/v1/reviews/${pending.id}/reject`,
    { reason: '缺少回滚步骤' }, { 'Idempotency-Key': 'reject-1' });
  assert.equal(rejected.status, 200, rejected.text);
  await page.reload();
  await page.getByText('缺少回滚步骤').waitFor();
  assert.equal(await page.getByTestId('status-badge').textContent(), 'Rejected');

  // Edited, submitted, approved with a comment: the preview and its ingestion appear.
  await page.getByTestId('content-input').fill('第一步：冻结分支。\n第二步：回滚演练。\n');
  await page.getByTestId('save').click();
  await page.getByTestId('message').getByText(/Saved/).waitFor();
  await page.getByTestId('submit').click();
  await page.getByTestId('withdraw').waitFor();
  const again = (await docgate.api(alice, 'GET', `api/v1/documents/${id}`)).json;
  const approved = await docgate.api(bob, 'POST', `api/v1/reviews/${again.current_review_id}/approve`,
    { comment: '可以发布' }, { 'Idempotency-Key': 'approve-1' });
  assert.equal(approved.status, 200, approved.text);
  await eventually(async () => (await docgate.api(alice, 'GET', `api/v1/documents/${id}`))
    .json.ingest_status === 'done', 'the approved version ingested');
  await page.reload();
  await page.getByText('可以发布').waitFor();
  await page.getByText('第二步：回滚演练。').last().waitFor();
  await page.getByText('Ingested').waitFor();
  assert.equal(await page.getByTestId('status-badge').textContent(), 'Approved');
  await screenshot(page, 'document-en');

  // The list shows it with its badge.
  await page.getByTestId('nav-documents').click();
  const row = page.getByTestId('document-row').filter({ hasText: '发布流程' });
  assert.equal(await row.getByTestId('status-badge').textContent(), 'Approved');
  await screenshot(page, 'documents-en');

  // Sign out: back to sign-in, the token gone from sessionStorage.
  await page.getByTestId('sign-out').click();
  await page.getByTestId('token-input').waitFor();
  assert.equal(await page.evaluate(() => Object.keys(sessionStorage).length), 0);
  assert.deepEqual(page.errors, []);
});

test('an expired or refused token returns to sign-in with a clear message', async () => {
  // Expiring while the page is open: the console's timer signs out at `exp`.
  const page = await openConsole(browser, docgate, null);
  await page.getByTestId('token-input').fill(docgate.token('alice', 'author', ['--ttl-seconds', '3']));
  await page.getByTestId('sign-in').click();
  await page.getByTestId('message').getByText(/expired/).waitFor();
  assert.match(await page.getByTestId('message').textContent(), /expired/);

  // A token the server refuses (another secret): 401, then sign-in with the same message.
  const [header, payload] = docgate.token('alice', 'author').split('.');
  await page.getByTestId('token-input').fill(`${header}.${payload}.c2lnbmVkLWJ5LXNvbWVvbmUtZWxzZQ`);
  await page.getByTestId('sign-in').click();
  await page.getByTestId('message').getByText(/expired|no longer valid/).waitFor();
  await page.getByTestId('token-input').waitFor();
  assert.deepEqual(page.errors, []);
});

// A sign-in link is something anyone can send (issue 36, item 5): one for another user asks, names
// both, and switches only on confirm; cancel keeps the session. The token never stays in the URL.
test('a sign-in link for another user asks before it switches', async () => {
  const bob = docgate.token('bob', 'reviewer');
  const page = await openConsole(browser, docgate, docgate.token('alice', 'author'));
  const tokenInTab = () => page.evaluate(() => sessionStorage.getItem('docgate.token'));
  const alice = await tokenInTab();
  await page.getByTestId('new-document').click();
  await page.getByTestId('title-input').fill('unsaved work');

  // Opened in the tab (a same-document navigation): asked, both users named; cancel keeps alice,
  // on the page she was on, with what she typed.
  await page.goto(`${docgate.base}#token=${bob}`);
  const question = page.getByTestId('switch-user');
  await question.waitFor();
  assert.equal(page.url().includes('token='), false);
  const asked = await question.textContent();
  assert.match(asked, /Alice \(alice\)/);
  assert.match(asked, /Bob \(bob\)/);
  assert.equal(await page.getByRole('dialog').getAttribute('aria-labelledby'), 'dialog-title');
  assert.deepEqual(await seriousViolations(page), [], 'axe on the question');
  // Enter must not switch: the focus is on cancel.
  assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'cancel');
  await page.getByTestId('cancel').click();
  await page.getByTestId('message').getByText(/Still signed in as Alice/).waitFor();
  assert.equal(await question.isVisible(), false);
  assert.equal(await tokenInTab(), alice);
  assert.match(await page.locator('#who').textContent(), /Alice/);
  assert.equal(await page.getByTestId('title-input').inputValue(), 'unsaved work');
  assert.match(page.url(), /#\/documents\/new$/);

  // Loaded with the link (the tab's session restored first): asked again; confirm switches.
  await page.goto('about:blank');
  await page.goto(`${docgate.base}#token=${bob}`);
  await question.waitFor();
  assert.equal(page.url().includes('token='), false);
  await page.getByTestId('confirm').click();
  await page.getByTestId('nav-queue').waitFor();
  assert.match(await page.locator('#who').textContent(), /Bob/);
  assert.equal(await tokenInTab(), bob);

  // A link for the user already signed in refreshes the token without asking.
  const longer = docgate.token('bob', 'reviewer', ['--ttl-seconds', '7200']);
  assert.notEqual(longer, bob);
  await page.goto(`${docgate.base}#token=${longer}`);
  await eventually(async () => (await tokenInTab()) === longer, 'the refreshed token');
  assert.equal(await question.isVisible(), false);
  assert.equal(page.url().includes('token='), false);
  assert.deepEqual(page.errors, []);
});

test('an expired sign-in link shows sign-in with the reason, not an empty page', async () => {
  const expiring = docgate.token('alice', 'author', ['--ttl-seconds', '1']);
  const exp = JSON.parse(Buffer.from(expiring.split('.')[1], 'base64url').toString()).exp;
  await eventually(() => Date.now() >= exp * 1000, 'the link to expire');
  // The page loaded with the link (the tab had nothing drawn before it).
  const context = await browser.newContext({ locale: 'en-US' });
  context.setDefaultTimeout(PATIENCE_MS);
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (error) => page.errors.push(error.message));
  await page.goto(`${docgate.base}#token=${expiring}`);
  await page.getByTestId('token-input').waitFor();
  await page.getByTestId('message').getByText(/sign-in link has expired/).waitFor();
  assert.equal(page.url().includes('token='), false);

  // With a session open, an expired link leaves it as it is.
  await page.goto(`${docgate.base}#token=${docgate.token('bob', 'reviewer')}`);
  await page.getByTestId('nav-queue').waitFor();
  await page.goto(`${docgate.base}#token=${expiring}`);
  await page.getByTestId('message').getByText(/sign-in link has expired/).waitFor();
  assert.match(await page.locator('#who').textContent(), /Bob/);
  assert.deepEqual(page.errors, []);
});
