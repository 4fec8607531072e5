// oidc_provider.mjs's sign-in, proved without docgate: the authorization code flow of the client
// `docgate` against the real OpenID provider (npm oidc-provider), driven in Debian's headless
// Chromium through playwright-core, the way docgate's console sign-in will use it.
//
// The test runs a small HTTP server of its own on 127.0.0.1 standing in for docgate: it records
// the query of every request to /auth/callback (the redirect URI) and /signed-out (the
// post-logout redirect URI). For each ID token algorithm, RS256 and ES256 (a provider each):
//   - Chromium opens the authorization endpoint (response_type=code, client_id, redirect_uri,
//     scope 'openid profile groups', state, nonce, S256 code_challenge), fills the provider's own
//     login form as zhangsan (any password), and, with no consent page, lands on the callback with
//     the code, the state and the issuer (iss);
//   - the code is exchanged at the token endpoint (client_secret_basic, the code_verifier; Node's
//     fetch): the ID token's header alg and kid, its signature under the provider's jwks_uri,
//     iss, aud (docgate), nonce, exp, sub, name 张三, preferred_username and groups ['kb-writers'];
//     the same code a second time, or with another verifier, is invalid_grant;
//   - the end_session_endpoint with id_token_hint and post_logout_redirect_uri lands on
//     /signed-out with the state, and the provider's session is over: the next authorization
//     request shows the login form again, where lisi signs in (李四, ['kb-reviewers']).
// Besides, on a provider started with redirectUris: [] and the callback allowed afterwards
// (allowRedirectUris): an authorization request without code_challenge, or with the plain
// method, is refused (PKCE is required, S256 only); the login page's Cancel link returns
// access_denied; a login not among `users` gets the login form again; a user with no `name`
// gives an ID token with preferred_username alone.
// No page of the provider asks for anything outside 127.0.0.1.
//
// Run from tests/browser: node --test oidc_provider_login.test.mjs
// Exits 77 (ctest's skip) with a line starting SKIPPED: when Chromium or oidc-provider (npm ci)
// is missing.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, test } from 'node:test';

import { CHROMIUM, PATIENCE_MS, eventually, importOidcProvider, launchBrowser, skip } from './harness.mjs';

if (!fs.existsSync(CHROMIUM)) skip(`${CHROMIUM} is missing: Chromium (apt-get install chromium)`);
const oidc = await importOidcProvider();
const { CLIENT_ID, CLIENT_SECRET, decodeToken, generateKeys, startProvider } = oidc;

const SCOPE = 'openid profile groups';
const random = () => crypto.randomBytes(32).toString('base64url');  // 43 characters: a verifier's minimum
const now = () => Math.floor(Date.now() / 1000);

// The stand-in for docgate: records each request's path and query, answers a small page.
let relyingParty;
let browser;
let keys;

before(async () => {
  const requests = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://127.0.0.1');
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(`<!DOCTYPE html><title>relying party</title><p>${url.pathname}</p>`);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  relyingParty = {
    callback: `${base}/auth/callback`,
    signedOut: `${base}/signed-out`,
    // The first request to `pathname` with `state` in its query (waited for).
    awaitRequest: (pathname, state) => eventually(
      () => requests.find((r) => r.path === pathname && r.query.state === state),
      `a request to ${pathname} with state ${state}`),
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
  keys = await generateKeys();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await relyingParty?.close();
});

async function newPage() {
  const context = await browser.newContext({ locale: 'zh-CN' });
  context.setDefaultTimeout(PATIENCE_MS);
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (error) => page.errors.push(error));
  page.outside = [];  // requests leaving 127.0.0.1 (the provider's pages are self-contained)
  page.on('request', (request) => {
    if (new URL(request.url()).hostname !== '127.0.0.1') page.outside.push(request.url());
  });
  return page;
}

// An authorization request of docgate's kind: its URL and the secrets the client keeps.
function authorizationRequest(provider, over = {}) {
  const request = { state: random(), nonce: random(), verifier: random() };
  const challenge = crypto.createHash('sha256').update(request.verifier).digest('base64url');
  const params = {
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: relyingParty.callback,
    scope: SCOPE,
    state: request.state,
    nonce: request.nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...over,
  };
  const url = new URL(provider.discovery.authorization_endpoint);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return { ...request, url: url.href };
}

// Signs in through the provider's login page: login and any password, then the submit button.
async function signIn(page, login) {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password at all');
  await page.locator('button[type="submit"]').click();
}

// The code at the callback for `request`: its query, checked for state and iss.
async function callbackFor(provider, request) {
  const { query } = await relyingParty.awaitRequest('/auth/callback', request.state);
  assert.equal(query.error, undefined, `the callback has an error: ${JSON.stringify(query)}`);
  assert.ok(query.code, `no code at the callback: ${JSON.stringify(query)}`);
  assert.equal(query.iss, provider.issuer, 'the authorization response names the issuer (RFC 9207)');
  return query.code;
}

function exchange(provider, code, verifier, { secret = CLIENT_SECRET } = {}) {
  return fetch(provider.discovery.token_endpoint, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(secret)}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code', code, redirect_uri: relyingParty.callback, code_verifier: verifier,
    }),
  }).then(async (response) => ({ status: response.status, json: await response.json() }));
}

// The ID token of a code (exchanged; its signature checked against the provider's JWKS) and its
// claims.
async function idTokenFor(provider, code, verifier, alg) {
  const response = await exchange(provider, code, verifier);
  assert.equal(response.status, 200, `token endpoint: ${JSON.stringify(response.json)}`);
  assert.equal(response.json.token_type, 'Bearer');
  assert.ok(response.json.access_token, 'an access token');
  const idToken = response.json.id_token;
  assert.ok(idToken, `no id_token: ${JSON.stringify(response.json)}`);
  const { header, payload } = decodeToken(idToken);
  assert.equal(header.alg, alg, 'the ID token is signed with the client\'s id_token_signed_response_alg');
  const expectedKid = (alg === 'RS256' ? keys.rs : keys.es).kid;
  assert.equal(header.kid, expectedKid);
  const jwks = await (await fetch(provider.discovery.jwks_uri)).json();
  const jwk = jwks.keys.find((key) => key.kid === header.kid);
  assert.ok(jwk, `the kid ${header.kid} is published at the jwks_uri`);
  const [h, p, signature] = idToken.split('.');
  assert.ok(crypto.verify('sha256', Buffer.from(`${h}.${p}`), {
    key: crypto.createPublicKey({ key: jwk, format: 'jwk' }),
    ...(alg === 'ES256' ? { dsaEncoding: 'ieee-p1363' } : {}),
  }, Buffer.from(signature, 'base64url')), 'the ID token\'s signature verifies under the published key');
  return { idToken, claims: payload };
}

for (const alg of ['RS256', 'ES256']) {
  test(`sign-in through the provider's login page, ID token ${alg}; sign-out; sign-in again`, async () => {
    const provider = await startProvider({
      keys: [keys.rs, keys.es],
      redirectUris: [relyingParty.callback],
      postLogoutRedirectUris: [relyingParty.signedOut],
      idTokenAlg: alg,
    });
    const page = await newPage();
    try {
      assert.ok(provider.discovery.end_session_endpoint, 'the discovery document has end_session_endpoint');
      assert.ok(provider.discovery.id_token_signing_alg_values_supported.includes(alg));
      assert.ok(provider.discovery.code_challenge_methods_supported.includes('S256'));

      // zhangsan signs in.
      const first = authorizationRequest(provider);
      await page.goto(first.url);
      await signIn(page, 'zhangsan');
      const code = await callbackFor(provider, first);
      await page.waitForURL((url) => url.href.startsWith(relyingParty.callback));

      const { idToken, claims } = await idTokenFor(provider, code, first.verifier, alg);
      assert.equal(claims.iss, provider.issuer);
      assert.equal(claims.aud, CLIENT_ID);
      assert.equal(claims.nonce, first.nonce);
      assert.equal(claims.sub, 'zhangsan');
      assert.equal(claims.name, '张三');
      assert.equal(claims.preferred_username, 'zhangsan');
      assert.deepEqual(claims.groups, ['kb-writers']);
      assert.ok(claims.exp > now() && claims.exp <= now() + 24 * 3600, `exp ${claims.exp}`);
      assert.ok(claims.iat <= now() + 5);

      // A code is good once, and only with its verifier.
      const again = await exchange(provider, code, first.verifier);
      assert.equal(again.status, 400);
      assert.equal(again.json.error, 'invalid_grant');

      // Signed in at the provider: another authorization request in this browser context gets a
      // code at once, without the form; a wrong code_verifier is refused for it.
      const silent = authorizationRequest(provider);
      await page.goto(silent.url);
      const wrong = await exchange(provider, await callbackFor(provider, silent), random());
      assert.equal(wrong.status, 400);
      assert.equal(wrong.json.error, 'invalid_grant');

      // Sign-out through end_session: back at the post-logout URI with the state.
      const idTokenHint = idToken;
      const logoutState = random();
      const logout = new URL(provider.discovery.end_session_endpoint);
      logout.searchParams.set('id_token_hint', idTokenHint);
      logout.searchParams.set('post_logout_redirect_uri', relyingParty.signedOut);
      logout.searchParams.set('state', logoutState);
      await page.goto(logout.href);
      await relyingParty.awaitRequest('/signed-out', logoutState);
      await page.waitForURL((url) => url.href.startsWith(relyingParty.signedOut));

      // The provider's session is over: the login form again, where lisi signs in.
      const second = authorizationRequest(provider);
      await page.goto(second.url);
      await signIn(page, 'lisi');
      const { claims: lisi } = await idTokenFor(provider, await callbackFor(provider, second), second.verifier, alg);
      assert.equal(lisi.sub, 'lisi');
      assert.equal(lisi.name, '李四');
      assert.equal(lisi.nonce, second.nonce);
      assert.deepEqual(lisi.groups, ['kb-reviewers']);

      assert.deepEqual(page.errors, []);
      assert.deepEqual(page.outside, []);
    } finally {
      await page.context().close();
      await provider.stop();
    }
  });
}

test('PKCE is required; Cancel; an unknown login; users without a name; redirect URIs added later', async () => {
  const provider = await startProvider({
    keys: [keys.rs],
    redirectUris: [],
    users: { wangwu: { preferred_username: 'wang.wu', groups: [] } },
  });
  const page = await newPage();
  try {
    // Not yet allowed: the provider's error page, no redirect.
    const early = await fetch(authorizationRequest(provider).url, { redirect: 'manual' });
    assert.equal(early.status, 400, 'an unregistered redirect_uri is refused');
    provider.allowRedirectUris([relyingParty.callback]);

    // No code_challenge: an error to the redirect URI, no login form.
    const noPkce = authorizationRequest(provider, { code_challenge: undefined, code_challenge_method: undefined });
    const refused = await fetch(noPkce.url, { redirect: 'manual' });
    assert.equal(refused.status, 303);
    const location = new URL(refused.headers.get('location'));
    assert.equal(location.origin + location.pathname, relyingParty.callback);
    assert.equal(location.searchParams.get('error'), 'invalid_request');
    assert.match(location.searchParams.get('error_description'), /PKCE/);
    // Nor the plain method: S256 only.
    const plain = authorizationRequest(provider, { code_challenge: random(), code_challenge_method: 'plain' });
    const refusedPlain = new URL((await fetch(plain.url, { redirect: 'manual' })).headers.get('location'));
    assert.equal(refusedPlain.searchParams.get('error'), 'invalid_request');

    // The login page's "[ Cancel ]" link: access_denied to the redirect URI, with the state.
    const cancelled = authorizationRequest(provider);
    await page.goto(cancelled.url);
    await page.getByRole('link', { name: '[ Cancel ]' }).click();
    const { query: denied } = await relyingParty.awaitRequest('/auth/callback', cancelled.state);
    assert.equal(denied.error, 'access_denied');
    assert.equal(denied.code, undefined);

    // A login that `users` lacks: the login form again, then a known one signs in.
    const request = authorizationRequest(provider);
    await page.goto(request.url);
    await signIn(page, 'zhangsan');  // not among this provider's users
    await page.waitForURL((url) => url.pathname.startsWith('/interaction/') && url.href.startsWith(provider.issuer));
    await page.locator('input[name="login"]').waitFor();
    await signIn(page, 'wangwu');
    const { claims } = await idTokenFor(provider, await callbackFor(provider, request), request.verifier, 'RS256');
    assert.equal(claims.sub, 'wangwu');
    assert.equal(claims.name, undefined, 'no name claim');
    assert.equal(claims.preferred_username, 'wang.wu');
    assert.deepEqual(claims.groups, []);
    assert.deepEqual(page.errors, []);
    assert.deepEqual(page.outside, []);
  } finally {
    await page.context().close();
    await provider.stop();
  }
});
