// Console sign-in through a real OpenID provider (API.md v1.2 "Console sign-in", ADR 0013):
// oidc-provider (tests/browser/oidc_provider.mjs) on 127.0.0.1 with users 张三 (kb-writers) and
// 李四 (kb-reviewers), and a docgate with DOCGATE_OIDC_ISSUER, _CLIENT_ID, _CLIENT_SECRET and
// DOCGATE_PUBLIC_URL. Chromium signs in on the provider's own login page, and then:
//   - the console names the user (`current-user`), works (a document is written: the session
//     cookie and its CSRF token carry the POST), and logs out, ending the session on the server
//     and offering the provider's end-session;
//   - no URL the browser visited, and nothing script can read, holds a token: the session is an
//     HttpOnly cookie, and what the provider sent back (a one-time code) left the address bar;
//   - a second sign-in as another user in a browser with an open session asks first (kept, then
//     taken), with both users named.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, test } from 'node:test';

import {
  BINARY, CHROMIUM, PATIENCE_MS, eventually, importOidcProvider, launchBrowser, skip, startDocgate,
} from './harness.mjs';
import { CATALOG } from '../../src/console/i18n.js';

if (!fs.existsSync(BINARY)) skip(`${BINARY} is missing: the docgate binary (set DOCGATE_BINARY)`);
if (!fs.existsSync(CHROMIUM)) skip(`${CHROMIUM} is missing: Chromium (apt-get install chromium)`);
const oidc = await importOidcProvider();

const en = CATALOG.en;

// A port free now, for docgate: its public URL (the redirect URI) must be known before it starts.
async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let provider;
let docgate;
let browser;
let publicUrl;

before(async () => {
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  const { rs, es } = await oidc.generateKeys();
  provider = await oidc.startProvider({
    keys: [rs, es],
    redirectUris: [`${publicUrl}/auth/callback`],
    postLogoutRedirectUris: [`${publicUrl}/`],
    idTokenAlg: 'ES256',
  });
  docgate = await startDocgate({
    DOCGATE_LISTEN: `127.0.0.1:${port}`,
    DOCGATE_PUBLIC_URL: publicUrl,
    DOCGATE_OIDC_ISSUER: provider.issuer,
    DOCGATE_OIDC_CLIENT_ID: oidc.CLIENT_ID,
    DOCGATE_OIDC_CLIENT_SECRET: oidc.CLIENT_SECRET,
    DOCGATE_OIDC_ROLES_CLAIM: 'groups',
    DOCGATE_OIDC_ROLE_MAP: 'kb-writers=author,kb-reviewers=reviewer',
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await docgate?.stop();
  await provider?.stop();
});

// A browser context whose every visited URL (each frame navigation, each request) is kept.
async function newTab() {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1200, height: 900 } });
  context.setDefaultTimeout(PATIENCE_MS);
  const page = await context.newPage();
  page.visited = [];
  page.errors = [];
  page.on('framenavigated', (frame) => page.visited.push(frame.url()));
  page.on('request', (request) => page.visited.push(request.url()));
  page.on('pageerror', (error) => page.errors.push(error.message));
  return page;
}

// From the console's sign-in page, through the provider's login page, as `login`.
async function signInAs(page, login) {
  await page.getByTestId('sign-in-provider').click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();
}

async function expectSignedInAs(page, name) {
  await eventually(async () => (await page.getByTestId('current-user').textContent().catch(() => '')) === name,
    `the console to show ${name}`);
}

test('signing in through the provider, working, and logging out; no token in any URL', async () => {
  const page = await newTab();
  await page.goto(publicUrl);
  await signInAs(page, 'zhangsan');
  await expectSignedInAs(page, '张三');
  assert.equal(await page.locator('#who').getAttribute('title'), 'zhangsan');
  assert.equal(new URL(page.url()).search, '', 'the code and state left the address bar');
  assert.doesNotMatch(page.url(), /code=|state=/);

  // Work: a document written through the console (POST with the session's CSRF token).
  await page.getByTestId('new-document').click();
  await page.getByTestId('title-input').fill('值班交接规范');
  await page.getByTestId('content-input').fill('交接前核对告警。\n');
  await page.getByTestId('save').click();
  await page.getByTestId('submit').waitFor();
  const author = page.locator('main [title="zhangsan"]').first();
  assert.equal(await author.textContent(), '张三');

  // The session is an HttpOnly, SameSite cookie: nothing the page's scripts could hand on.
  const cookies = await page.context().cookies(publicUrl);
  const session = cookies.find((cookie) => cookie.name === 'docgate_session');
  assert.ok(session, 'a session cookie');
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, 'Lax');
  assert.equal(await page.evaluate(() => document.cookie.includes('docgate_session')), false);
  assert.equal(await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }).includes('eyJ')),
    false, 'no JWT kept in storage');
  for (const url of page.visited) {
    assert.doesNotMatch(url, /id_token=|access_token=|refresh_token=|#token=|eyJ[\w-]+\.eyJ/,
      `a token in a visited URL: ${url}`);
  }
  // The one-time code went to docgate's callback only, and the browser moved on from it.
  const codes = page.visited.filter((url) => /[?&]code=/.test(url));
  assert.ok(codes.length >= 1);
  for (const url of codes) assert.ok(url.startsWith(`${publicUrl}/auth/callback?`), url);

  // Logout ends the session on the server, and offers the provider's own sign-out.
  await page.getByTestId('sign-out').click();
  await page.getByTestId('sign-in-provider').waitFor();
  const me = await page.context().request.get(`${publicUrl}/api/v1/me`, {
    headers: { Cookie: `docgate_session=${session.value}` },
  });
  assert.equal(me.status(), 401, 'the old cookie signs no one in');
  const providerSignOut = page.getByTestId('provider-sign-out');
  assert.equal(await providerSignOut.textContent(), en['signout.provider']);
  assert.ok((await providerSignOut.getAttribute('href')).startsWith(provider.discovery.end_session_endpoint));
  await providerSignOut.click();
  await eventually(() => page.url().startsWith(`${publicUrl}/`) && !page.url().includes('/session/end'),
    'back on the console after the provider signed out');
  // Signed out there too: the next sign-in shows the provider's login form again.
  await page.getByTestId('sign-in-provider').click();
  await page.locator('input[name="login"]').waitFor();
  assert.deepEqual(page.errors, []);
});

test('a sign-in as another user in a browser with an open session asks first', async () => {
  const page = await newTab();
  await page.goto(publicUrl);
  await signInAs(page, 'zhangsan');
  await expectSignedInAs(page, '张三');

  // Another person signs in at the provider in this browser (its own session there forgotten:
  // only docgate's cookies are kept), as if a link to /auth/login had been followed.
  const forgetProvider = async () => {
    const kept = (await page.context().cookies()).filter((cookie) => cookie.name.startsWith('docgate_'));
    await page.context().clearCookies();
    await page.context().addCookies(kept);
  };
  await forgetProvider();
  await page.goto(`${publicUrl}/auth/login`);
  await page.locator('input[name="login"]').fill('lisi');
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();

  const question = page.getByTestId('switch-user');
  await question.waitFor();
  const text = await question.textContent();
  assert.match(text, /张三/);
  assert.match(text, /李四/);
  assert.equal(await page.getByTestId('current-user').textContent(), '张三', 'nothing switched yet');
  await page.getByTestId('cancel').click();
  await eventually(async () => (await page.locator('#message').textContent()).includes('张三'),
    'the console to say who is still signed in');
  assert.equal(await page.getByTestId('current-user').textContent(), '张三');
  assert.equal(new URL(page.url()).hash.includes('switch'), false);

  // Again, and this time the switch is taken: 李四, a reviewer, has the queue.
  await page.goto(`${publicUrl}/auth/login`);  // the provider remembers 李四 now: no form
  await page.getByTestId('switch-user').waitFor();
  await page.getByTestId('confirm').click();
  await expectSignedInAs(page, '李四');
  await page.getByTestId('nav-queue').waitFor();
  assert.deepEqual(page.errors, []);
});
