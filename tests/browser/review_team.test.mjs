// Reviews as teams run them (issue 38, item 4): two reviewers reach a quorum of two, each in a
// browser of their own, the votes so far shown by name; the author assigns a reviewer, who finds
// the review in "my queue"; a reviewer comments on a line of the diff, and the author, in their own
// browser, sees the comment under that line. Every action double-clicked: one effect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setUp, openConsole, eventually, seriousViolations } from './harness.mjs';
import { CATALOG } from '../../src/console/i18n.js';

const zh = CATALOG['zh-CN'];
const en = CATALOG.en;
const { docgate, browser } = await setUp();
const alice = docgate.token('alice', 'author', [], { name: '王芳' });

// A catalog text with its placeholders filled in, as the console's t() does.
const fill = (text, vars) => text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name]));

// A document by Alice, submitted with `submitBody`; its ids.
async function submitted(title, content, submitBody = {}) {
  const created = await docgate.api(alice, 'POST', 'api/v1/documents', { title, content });
  assert.equal(created.status, 201, created.text);
  const id = created.json.id;
  const submit = await docgate.api(alice, 'POST', `api/v1/documents/${id}/submit`, submitBody,
    { 'Idempotency-Key': `team-submit-${id}` });
  assert.equal(submit.status, 200, submit.text);
  return { documentId: id, reviewId: submit.json.review.id };
}

// `locator`'s text once it is `text` (the page draws itself again after each action).
async function expectText(locator, text, what) {
  let shown;
  await eventually(async () => (shown = await locator.textContent().catch(() => null)) === text,
    `${what} to read ${text}`).catch((error) => {
    throw new Error(`${error.message}; it reads ${shown}`);
  });
}

test('two reviewers in two browsers reach a quorum of two; the votes show who', async () => {
  const title = '双人审核 Two approvals';
  const { documentId, reviewId } = await submitted(title, '变更需两人批准。\n', { required_approvals: 2 });
  const bob = await openConsole(browser, docgate, docgate.token('bob', 'reviewer', [], { name: '李四' }));
  const carol = await openConsole(browser, docgate,
    docgate.token('carol', 'reviewer', [], { name: '赵六' }), 'zh-CN');
  for (const page of [bob, carol]) {
    await page.goto(`${docgate.base}#/reviews/${reviewId}`);
    await page.getByTestId('approve').waitFor();
  }
  await expectText(bob.getByTestId('vote-count'), fill(en['review.approvals'], { count: 0, required: 2 }),
    'the votes before any');

  // Bob approves (the confirmation double-clicked): one vote of two, the review still pending.
  await bob.getByTestId('approve').click();
  await bob.getByTestId('confirm').dblclick();
  await bob.getByTestId('message')
    .getByText(fill(en['approve.recorded'], { count: 1, required: 2 })).waitFor();
  await expectText(bob.getByTestId('vote-count'), fill(en['review.approvals'], { count: 1, required: 2 }),
    "Bob's page after his vote");
  // Who voted, by name, the id on hover.
  const voters = bob.locator('main p:has([data-testid="vote-count"]) .person');
  assert.deepEqual(await voters.allTextContents(), ['李四']);
  assert.equal(await voters.getAttribute('title'), 'bob');
  assert.equal(await bob.getByTestId('approve').isDisabled(), true, 'a second vote is not offered');
  let review = (await docgate.api(alice, 'GET', `api/v1/reviews/${reviewId}`)).json;
  assert.equal(review.status, 'pending');
  assert.deepEqual(review.approvals.map((a) => a.reviewer_id), ['bob']);

  // Carol, in Chinese, loads the review again and sees Bob's vote; hers completes the quorum.
  await carol.reload();
  await expectText(carol.getByTestId('vote-count'), fill(zh['review.approvals'], { count: 1, required: 2 }),
    "Carol's page");
  await carol.getByTestId('approve').click();
  await carol.getByTestId('confirm').dblclick();
  await carol.getByTestId('message').getByText(zh['approve.done']).waitFor();
  await expectText(carol.getByTestId('vote-count'), fill(zh['review.approvals'], { count: 2, required: 2 }),
    'the votes once decided');
  assert.deepEqual(await carol.locator('main p:has([data-testid="vote-count"]) .person').allTextContents(),
    ['李四', '赵六']);
  assert.equal(await carol.getByTestId('approve').count(), 0, 'no decision left to make');

  review = (await docgate.api(alice, 'GET', `api/v1/reviews/${reviewId}`)).json;
  assert.equal(review.status, 'approved');
  assert.equal(review.decided_by, 'carol');
  assert.deepEqual(review.approvals.map((a) => [a.reviewer_id, a.reviewer_name]), [['bob', '李四'], ['carol', '赵六']]);
  const document = (await docgate.api(alice, 'GET', `api/v1/documents/${documentId}`)).json;
  assert.equal(document.status, 'approved');
  assert.deepEqual([...bob.errors, ...carol.errors], []);
});

test('the author assigns a reviewer, who finds the review in my queue', async () => {
  const assigned = '指派给周七 Assigned to Dave';
  const other = '无人指派 Nobody assigned';
  const { documentId, reviewId } = await submitted(assigned, '请周七审核。\n');
  await submitted(other, '任何审核人都可以。\n');
  // Dave signs in first: docgate knows his name from then on.
  const dave = await openConsole(browser, docgate, docgate.token('dave', 'reviewer', [], { name: '周七' }));

  // The author, in Chinese, from her document to its review.
  const author = await openConsole(browser, docgate, alice, 'zh-CN');
  await author.goto(`${docgate.base}#/documents/${documentId}`);
  await author.getByRole('link', { name: zh['document.openReview'] }).click();
  await author.getByTestId('assignee-input').waitFor();
  await author.getByText(zh['review.assigneesNone']).waitFor();

  // Herself: refused (four eyes), with the server's own words in Chinese.
  await author.getByTestId('assignee-input').fill('alice');
  await author.getByTestId('assignee-add').click();
  const refusal = await docgate.api(alice, 'POST', `api/v1/reviews/${reviewId}/assignees`,
    { add: ['alice'] }, { 'Accept-Language': 'zh-CN' });
  assert.equal(refusal.status, 403, refusal.text);
  assert.equal(refusal.json.code, 'SELF_REVIEW');
  await expectText(author.getByTestId('message'), refusal.json.detail, 'the refusal');
  assert.equal(await author.getByTestId('message').getAttribute('role'), 'alert');

  // Dave, with a double click: assigned once, shown by name.
  await author.getByTestId('assignee-input').fill('dave');
  await author.getByTestId('assignee-add').dblclick();
  await author.getByTestId('message').getByText(fill(zh['assignee.added'], { name: '周七' })).waitFor();
  const item = author.getByTestId('assignee-item');
  await expectText(item.locator('.person'), '周七', 'the assignee');
  assert.equal(await item.locator('.person').getAttribute('title'), 'dave');
  assert.equal(await author.getByTestId('assignee-input').inputValue(), '');
  const review = (await docgate.api(alice, 'GET', `api/v1/reviews/${reviewId}`)).json;
  assert.deepEqual(review.assignees, ['dave']);
  assert.deepEqual(await seriousViolations(author), [], 'axe on the review page with its assignee');

  // Dave's queue: all pending reviews, then with "my queue" only the one assigned to him.
  await dave.getByTestId('nav-queue').click();
  const titles = () => dave.getByTestId('queue-item').locator('a').allTextContents();
  await eventually(async () => {
    const listed = await titles();
    return listed.includes(assigned) && listed.includes(other);
  }, 'both reviews in the whole queue');
  assert.equal(await dave.getByTestId('my-queue').isChecked(), false);
  await dave.getByTestId('my-queue').check();
  await eventually(async () => {
    const listed = await titles();
    return listed.includes(assigned) && !listed.includes(other);
  }, 'only the assigned review in my queue');
  assert.equal(await dave.getByTestId('my-queue').isChecked(), true);
  assert.match(dave.url(), /#\/queue\?mine=1$/);

  // Removed by the author: it leaves Dave's queue as the queue refreshes.
  await author.getByTestId('assignee-remove').click();
  await author.getByText(zh['review.assigneesNone']).waitFor();
  assert.deepEqual((await docgate.api(alice, 'GET', `api/v1/reviews/${reviewId}`)).json.assignees, []);
  await eventually(async () => !(await titles()).includes(assigned), 'the review leaving my queue');
  await dave.getByText(en['queue.emptyMine']).waitFor();
  await dave.getByTestId('my-queue').uncheck();
  await eventually(async () => (await titles()).includes(assigned), 'the whole queue again');
  assert.deepEqual([...author.errors, ...dave.errors], []);
});

test('a comment on a line of the diff is shown under that line, to the author too', async () => {
  // Version 1 approved, version 2 under review: a diff with its lines numbered.
  const before = ['# 上线检查', '一、确认变更单已审批。', '二、观察监控十分钟。', '三、通知值班群。',
    '四、记录上线时间。', '五、保留回滚包。', '六、结束。', ''].join('\n');
  const after = before.replace('二、观察监控十分钟。', '二、观察监控三十分钟，错误率低于千分之一。');
  const created = await docgate.api(alice, 'POST', 'api/v1/documents', { title: '上线检查 Release check', content: before });
  const id = created.json.id;
  const first = await docgate.api(alice, 'POST', `api/v1/documents/${id}/submit`, {}, { 'Idempotency-Key': `c1-${id}` });
  const erin = docgate.token('erin', 'reviewer');
  const approved = await docgate.api(erin, 'POST', `api/v1/reviews/${first.json.review.id}/approve`, {},
    { 'Idempotency-Key': `c2-${id}` });
  assert.equal(approved.status, 200, approved.text);
  const edited = await docgate.api(alice, 'PUT', `api/v1/documents/${id}`, { content: after },
    { 'If-Match': `"${approved.json.document.version}"` });
  assert.equal(edited.status, 200, edited.text);
  const second = await docgate.api(alice, 'POST', `api/v1/documents/${id}/submit`, {}, { 'Idempotency-Key': `c3-${id}` });
  assert.equal(second.status, 200, second.text);
  const reviewId = second.json.review.id;

  // 李四 picks line 3 (the changed one) by its number and comments on it, double-clicking.
  const lisi = await openConsole(browser, docgate, docgate.token('lisi', 'reviewer', [], { name: '李四' }), 'zh-CN');
  await lisi.goto(`${docgate.base}#/reviews/${reviewId}`);
  const diff = lisi.getByTestId('diff');
  await diff.locator('[data-line="3"]').getByText('三十分钟').waitFor();
  // The line numbers: one tab stop, the arrow keys move between them.
  const lineButton = (line) =>
    lisi.getByRole('button', { name: fill(zh['comment.lineButton'], { line }), exact: true });
  await lineButton(2).focus();
  await lisi.keyboard.press('ArrowDown');
  assert.equal(await lisi.evaluate(() => document.activeElement.getAttribute('aria-label')),
    fill(zh['comment.lineButton'], { line: 3 }));
  assert.equal(await diff.locator('button.ln[tabindex="0"]').count(), 1);
  await lineButton(3).click();
  await lisi.getByText(fill(zh['comment.onLine'], { line: 3 })).waitFor();
  assert.equal(await lisi.evaluate(() => document.activeElement.dataset.testid), 'comment-body');
  const text = '三十分钟太长了，建议十五分钟。';
  await lisi.getByTestId('comment-body').fill(text);
  await lisi.getByTestId('comment-add').dblclick();
  await lisi.getByTestId('message').getByText(zh['comment.done']).waitFor();
  await diff.locator('[data-line="3"]').getByTestId('comment-item').getByText(text).waitFor();
  await lisi.getByText(zh['comment.wholeDocument']).waitFor();  // the box is for the next one
  assert.equal(await lisi.getByTestId('comment-body').inputValue(), '');

  const listed = (await docgate.api(alice, 'GET', `api/v1/reviews/${reviewId}/comments`)).json.items;
  assert.deepEqual(listed.map((c) => [c.author_id, c.author_name, c.line, c.body]),
    [['lisi', '李四', 3, text]], 'one comment for a double click');

  // The author, in her own browser, from her document to its review: the comment under line 3.
  const author = await openConsole(browser, docgate, alice, 'zh-CN');
  await author.goto(`${docgate.base}#/documents/${id}`);
  await author.getByRole('link', { name: zh['document.openReview'] }).click();
  const row = author.getByTestId('diff').locator('[data-line="3"]');
  const comment = row.getByTestId('comment-item');
  await comment.waitFor();
  assert.equal(await comment.locator('.comment-text').textContent(), text);
  assert.equal(await comment.locator('[title="lisi"]').textContent(), '李四');
  assert.match(await row.locator('.code').textContent(), /^3二、观察监控三十分钟/);
  // Under the line it refers to, and above the next one.
  const lineBox = await row.locator('.code').boundingBox();
  const commentBox = await comment.boundingBox();
  const nextBox = await author.getByTestId('diff').locator('[data-line="4"] .code').boundingBox();
  assert.ok(commentBox.y >= lineBox.y + lineBox.height - 1, JSON.stringify({ lineBox, commentBox }));
  assert.ok(nextBox.y >= commentBox.y + commentBox.height - 1, JSON.stringify({ commentBox, nextBox }));
  assert.equal(await author.getByTestId('comment-item').count(), 1);

  // She answers on the whole document, in markup that stays text; 李四's open page shows it.
  const answer = '已改为十五分钟 <b>谢谢</b>';
  await author.getByTestId('comment-body').fill(answer);
  await author.getByTestId('comment-add').click();
  const general = author.locator('ul.comments').getByTestId('comment-item');
  await general.getByText(answer).waitFor();
  assert.equal(await author.locator('main b').count(), 0, 'no element made of a comment');
  await lisi.locator('ul.comments').getByTestId('comment-item').getByText(answer).waitFor();
  assert.equal(await lisi.getByTestId('diff').getByTestId('comment-item').count(), 1);
  assert.deepEqual(await seriousViolations(lisi), [], 'axe on the review page with comments');

  // An empty comment is not sent.
  const count = (await docgate.api(alice, 'GET', `api/v1/reviews/${reviewId}/comments`)).json.items.length;
  await lisi.getByTestId('comment-add').click();
  await lisi.getByTestId('message').getByText(zh['comment.needsBody']).waitFor();
  assert.equal((await docgate.api(alice, 'GET', `api/v1/reviews/${reviewId}/comments`)).json.items.length, count);
  assert.deepEqual([...lisi.errors, ...author.errors], []);
});
