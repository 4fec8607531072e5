// Markdown in the console (issue 39, items 2 and 5): rendered beside its source on the document page, the
// review page and the editor's preview, by the packages the binary ships (markdown-it, DOMPurify);
// nothing in a document runs, embeds a page, links to javascript: or data:, or fetches from another
// site before a click; a plain-text document is shown as written; a file imported from the
// documents page (import-file) becomes a draft.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  setUp, openConsole, eventually, idInUrl, seriousViolations, screenshot,
} from './harness.mjs';
import { CATALOG } from '../../src/console/i18n.js';

const { docgate, browser } = await setUp();
const alice = docgate.token('alice', 'author');

const IMAGES = 'https://images.example.test/';
const MANUAL = [
  '# 部署手册',
  '',
  '## 步骤',
  '',
  '1. 安装 **docgate**',
  '2. 运行 `make test`',
  '',
  '| 命令 | 说明 |',
  '|:---|---:|',
  '| make | 构建 |',
  '',
  '```bash',
  'echo "<script>alert(1)</script>"',
  '```',
  '',
  '<script>window.pwned = "script"</script>',
  '<img src="x" onerror="window.pwned = \'onerror\'">',
  '<iframe src="https://frames.example.test/"></iframe>',
  '<svg><script>window.pwned = "svg"</script><circle r="5" onload="window.pwned = \'svg-onload\'"/></svg>',
  '![矢量图](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+)',
  '',
  '[官网](https://example.com/docs) [邮件](mailto:ops@example.com)',
  '[危险](javascript:window.pwned=1) [数据](data:text/html;base64,PHNjcmlwdD4=) [站内](/metrics)',
  '<a href="https://example.com" onclick="window.pwned = \'onclick\'">原始链接</a>',
  '',
  `![架构图](${IMAGES}arch.png)`,
  '![旧图](http://images.example.test/old.png)',
  '',
].join('\n');

// A page whose every request to another site is counted (and answered here, never sent out), and
// whose Content-Security-Policy reports are collected.
async function watchedConsole(token, locale) {
  const page = await openConsole(browser, docgate, token, locale);
  page.foreign = [];
  page.violations = [];
  await page.route((url) => !url.href.startsWith(docgate.base), (route) => {
    page.foreign.push(route.request().url());
    // A 1x1 transparent PNG.
    return route.fulfill({ contentType: 'image/png', body: Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64') });
  });
  page.on('console', (entry) => {
    if (/Content Security Policy/i.test(entry.text())) page.violations.push(entry.text());
  });
  return page;
}

async function created(body, token = alice) {
  const answer = await docgate.api(token, 'POST', 'api/v1/documents', body);
  assert.equal(answer.status, 201, answer.text);
  return answer.json;
}

// What the rendered region holds that it must not: anything that runs, embeds or styles, an
// event handler, a link that is not http, https or mailto, an image before its click.
async function unsafeNodes(region) {
  return region.evaluate((root) => {
    const found = [];
    for (const node of root.querySelectorAll('*')) {
      const tag = node.tagName.toLowerCase();
      if (['script', 'iframe', 'object', 'embed', 'style', 'form', 'img'].includes(tag)) found.push(tag);
      for (const attribute of node.attributes) {
        if (/^on/i.test(attribute.name) || attribute.name === 'style') found.push(`${tag}[${attribute.name}]`);
      }
      if (tag === 'a' && !/^(https?:|mailto:)/.test(node.getAttribute('href') ?? '')) {
        found.push(`a[href=${node.getAttribute('href')}]`);
      }
    }
    return found;
  });
}

test('a Markdown document reads rendered beside its source, and nothing in it runs or fetches', async () => {
  const doc = await created({ title: '部署手册', content: MANUAL });
  assert.equal(doc.format, 'markdown');
  const page = await watchedConsole(docgate.token('bob', 'reviewer'), 'zh-CN');
  await page.goto(`${docgate.base}#/documents/${doc.id}`);
  const rendered = page.getByTestId('rendered');
  await rendered.locator('h2', { hasText: '步骤' }).waitFor();
  // The structure: headings, the ordered list, emphasis, the table with its alignment, the code.
  assert.equal(await rendered.locator('h1').textContent(), '部署手册');
  assert.deepEqual(await rendered.locator('ol > li').allTextContents(), ['安装 docgate', '运行 make test']);
  assert.equal(await rendered.locator('strong').textContent(), 'docgate');
  assert.deepEqual(await rendered.locator('th').allTextContents(), ['命令', '说明']);
  assert.equal(await rendered.locator('td.align-right').textContent(), '构建');
  assert.equal(await rendered.locator('pre code').textContent(), 'echo "<script>alert(1)</script>"\n');
  // Raw HTML is text, links are http, https or mailto only, and open apart.
  assert.deepEqual(await unsafeNodes(rendered), []);
  const text = await rendered.textContent();
  assert.ok(text.includes('<script>window.pwned = "script"</script>'), 'raw HTML shown as text');
  assert.deepEqual(await rendered.locator('a').evaluateAll((links) => links.map((a) =>
    [a.textContent, a.getAttribute('href'), a.target, a.rel])), [
    ['官网', 'https://example.com/docs', '_blank', 'noopener noreferrer nofollow'],
    ['邮件', 'mailto:ops@example.com', '_blank', 'noopener noreferrer nofollow'],
    ['显示来自 images.example.test 的图片“旧图”', 'http://images.example.test/old.png', '_blank',
      'noopener noreferrer nofollow'],
  ]);
  for (const refused of ['[危险](javascript:', '[数据](data:', '[站内](/metrics)']) {
    assert.ok(text.includes(refused), `${refused} is text, not a link`);
  }
  // The source stays beside it, as written.
  await page.locator('.text', { hasText: '## 步骤' }).waitFor();
  // Nothing left the page, and nothing ran.
  assert.deepEqual(page.foreign, []);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  // The image is fetched on its click only, then shown.
  const show = rendered.getByTestId('show-image');
  assert.equal(await show.textContent(),
    CATALOG['zh-CN']['rendered.image'].replace('{host}', 'images.example.test').replace('{alt}', '架构图'));
  await show.click();
  await rendered.locator(`img[src="${IMAGES}arch.png"][alt="架构图"]`).waitFor();
  await eventually(() => page.foreign.length === 1, 'the image requested after its click');
  assert.deepEqual(page.foreign, [`${IMAGES}arch.png`]);
  assert.deepEqual(page.violations, []);
  assert.deepEqual(page.errors, []);
  // (axe-core's own checks apply inline styles, which the CSP reports: they come after.)
  assert.deepEqual(await seriousViolations(page), []);
  await screenshot(page, 'markdown-rendered-zh');

  // The author's view of the same document: the editor's preview, as safe.
  const author = await watchedConsole(alice, 'en-US');
  await author.goto(`${docgate.base}#/documents/${doc.id}`);
  const preview = author.getByTestId('rendered');
  await preview.locator('h2', { hasText: '步骤' }).waitFor();
  assert.deepEqual(await unsafeNodes(preview), []);
  assert.deepEqual(author.foreign, []);
  assert.equal(await author.evaluate(() => window.pwned), undefined);
  assert.deepEqual(author.violations, []);
  assert.deepEqual(author.errors, []);
});

test('the review page shows the submitted version rendered beside its diff', async () => {
  const doc = await created({ title: '发布流程', content: '# 发布流程\n\n- 先灰度\n- 再全量\n' });
  const submit = await docgate.api(alice, 'POST', `api/v1/documents/${doc.id}/submit`, {},
    { 'Idempotency-Key': `submit-${doc.id}` });
  assert.equal(submit.status, 200, submit.text);
  const page = await watchedConsole(docgate.token('bob', 'reviewer'), 'en-US');
  await page.goto(`${docgate.base}#/reviews/${submit.json.review.id}`);
  const rendered = page.getByTestId('rendered');
  await rendered.locator('li', { hasText: '再全量' }).waitFor();
  assert.equal(await rendered.locator('h1').textContent(), '发布流程');
  // The diff is of the source text.
  await page.getByTestId('diff').getByText('- 先灰度').waitFor();
  assert.deepEqual(page.foreign, []);
  assert.deepEqual(page.violations, []);
  assert.deepEqual(page.errors, []);
});

test('the editor previews Markdown as it is typed, and a plain-text document is not rendered', async () => {
  const page = await watchedConsole(alice, 'en-US');
  await page.getByTestId('new-document').click();
  await page.getByTestId('title-input').fill('值班说明');
  await page.getByTestId('content-input').fill('## 联系人\n\n**张三**，分机 8001\n');
  const preview = page.getByTestId('rendered');
  await preview.locator('h2', { hasText: '联系人' }).waitFor();
  await page.getByTestId('content-input').fill('## 升级路径\n\n先找值班长。\n');
  await preview.locator('h2', { hasText: '升级路径' }).waitFor();
  // Plain text: no preview; saved as text, and the document page shows the text as written.
  await page.getByTestId('format-input').selectOption('text');
  await eventually(async () => !(await preview.isVisible()), 'the preview hidden for plain text');
  await page.getByTestId('save').click();
  await page.getByTestId('submit').waitFor();  // the document's page, editable
  const id = idInUrl(page);
  const saved = await docgate.api(alice, 'GET', `api/v1/documents/${id}`);
  assert.equal(saved.json.format, 'text');
  await page.getByTestId('content-input').waitFor();
  assert.equal(await page.getByTestId('format-input').inputValue(), 'text');
  assert.equal(await page.getByTestId('rendered').isVisible(), false);
  // A plain-text document another person reads: its text only.
  const reader = await watchedConsole(docgate.token('bob', 'reviewer'), 'en-US');
  await reader.goto(`${docgate.base}#/documents/${id}`);
  await reader.locator('.text', { hasText: '## 升级路径' }).waitFor();
  assert.equal(await reader.getByTestId('rendered').count(), 0);
  assert.deepEqual([...page.errors, ...reader.errors], []);
  assert.deepEqual([...page.violations, ...reader.violations], []);
});

test('the documents page imports a file: Markdown becomes a draft, another type is refused', async () => {
  const page = await watchedConsole(alice, 'zh-CN');
  await page.getByTestId('nav-documents').click();
  await page.getByTestId('import-file').setInputFiles({
    name: '值班手册.md', mimeType: 'text/markdown',
    buffer: Buffer.from('# 值班手册\n\n- 先止血\n- 再排查\n'),
  });
  // The draft's page, its editor previewing the imported text.
  await page.getByTestId('rendered').locator('h1', { hasText: '值班手册' }).waitFor();
  const id = idInUrl(page);
  const doc = await docgate.api(alice, 'GET', `api/v1/documents/${id}`);
  assert.equal(doc.json.title, '值班手册');
  assert.equal(doc.json.status, 'draft');
  assert.equal(doc.json.format, 'markdown');
  // A type docgate does not import: the server's reason, in the page's language.
  await page.getByTestId('nav-documents').click();
  await page.getByTestId('import-file').setInputFiles({
    name: 'table.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b\n1,2\n'),
  });
  await page.getByTestId('message').getByText('table.csv').waitFor();
  assert.deepEqual(page.errors, []);
  assert.deepEqual(page.violations, []);
});
