// docgate accepting bearer tokens of an OpenID Connect provider, against a real one: the npm
// package oidc-provider, started by oidc_provider.mjs on 127.0.0.1. No browser is involved.
//
// docgate is configured with DOCGATE_OIDC_ISSUER (the provider's issuer URL: exact `iss`, keys
// from the jwks_uri of <issuer>/.well-known/openid-configuration), DOCGATE_OIDC_AUDIENCE=docgate,
// DOCGATE_OIDC_ROLES_CLAIM=groups and DOCGATE_OIDC_ROLE_MAP=kb-writers=author,kb-reviewers=reviewer.
// The cases:
//   - real access tokens from the provider's token endpoint (client_credentials, JWT, RS256 and
//     ES256) create a document (201, author_id = the token's sub); a real token whose groups lack
//     kb-writers (a second provider, started with roles ['kb-reviewers']) is 403 FORBIDDEN;
//   - tokens crafted with the provider's own private keys (oidc_provider.mjs's signToken).
//     Accepted: well-formed RS256 and ES256, expired 30 s ago (60 s leeway), aud a list holding
//     docgate, groups as one space-separated string. Refused, each 401 problem+json
//     UNAUTHENTICATED: expired 120 s ago, nbf 120 s ahead, another iss, another aud, no exp, no
//     sub, alg none, HS256 keyed with the RSA public key's PEM (algorithm confusion), ES256 under
//     the RSA key's kid (and RS256 under the EC key's), an unpublished key under a published kid,
//     an unknown kid;
//   - 200 tokens with random kids (20 at a time) against a docgate of their own (default refresh
//     interval, 30 s): all 401, and the provider's JWKS endpoint served at most one more GET;
//   - key rotation under load (DOCGATE_OIDC_KEYS_REFRESH_MS=1000): the provider is stopped and
//     restarted on the same port with keys [new, old] while old-key requests keep flowing; every
//     old-key request is 201 throughout (docgate caches keys), and a new-key token becomes
//     accepted (polled, at most 60 s);
//   - /readyz's checks.identity: "ok" with a reachable issuer; "degraded" (status 200) when the
//     issuer is a closed port at start, where docgate still serves HS256 tokens.
//
// Run from tests/browser: DOCGATE_BINARY=/path/to/docgate node oidc_tokens.test.mjs
// Exits 77 (ctest's skip) with a line starting SKIPPED: when the binary or oidc-provider (npm ci)
// is missing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, test } from 'node:test';

import { BINARY, PATIENCE_MS, eventually, importOidcProvider, skip, startDocgate } from './harness.mjs';

if (!fs.existsSync(BINARY)) skip(`${BINARY} is missing: the docgate binary (set DOCGATE_BINARY)`);
const oidc = await importOidcProvider();
const { decodeToken, generateKey, generateKeys, signToken, startProvider } = oidc;

const DOCUMENT = { title: '数据库备份与恢复规范', content: '每天凌晨两点全量备份。' };

// docgate's settings for an issuer, as the cases below need them.
function oidcEnv(issuer, extra = {}) {
  return {
    DOCGATE_OIDC_ISSUER: issuer,
    DOCGATE_OIDC_AUDIENCE: 'docgate',
    DOCGATE_OIDC_ROLES_CLAIM: 'groups',
    DOCGATE_OIDC_ROLE_MAP: 'kb-writers=author,kb-reviewers=reviewer',
    ...extra,
  };
}

const now = () => Math.floor(Date.now() / 1000);
const randomSub = (what) => `${what}-${crypto.randomBytes(4).toString('hex')}`;

// The claims of a crafted token that docgate should accept; `over` replaces or (undefined) drops.
function claims(issuer, over = {}) {
  const all = {
    iss: issuer, aud: 'docgate', sub: randomSub('crafted'), iat: now(), exp: now() + 300,
    groups: ['kb-writers'], name: '李四', ...over,
  };
  return Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined));
}

const createDocument = (docgate, token) => docgate.api(token, 'POST', '/api/v1/documents', DOCUMENT);

function describe(response) {
  return `${response.status} ${response.headers.get('content-type')} ${response.text}`;
}

function assertCreated(response, sub, what) {
  assert.equal(response.status, 201, `${what}: expected 201, got ${describe(response)}`);
  assert.equal(response.json?.author_id, sub, `${what}: author_id is not the token's sub: ${response.text}`);
  assert.equal(response.json?.title, DOCUMENT.title, `${what}: ${response.text}`);
}

function assertUnauthenticated(response, what) {
  assert.equal(response.status, 401, `${what}: expected 401, got ${describe(response)}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/,
    `${what}: ${describe(response)}`);
  assert.equal(response.json?.code, 'UNAUTHENTICATED', `${what}: ${describe(response)}`);
  assert.equal(response.json?.status, 401, `${what}: ${describe(response)}`);
}

async function readyz(docgate) {
  const response = await fetch(new URL('readyz', docgate.base));
  const text = await response.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: response.status, json, text };
}

// A port nothing listens on (taken, then released).
async function closedPort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Runs fn over items, `width` at a time; the results in the items' order.
async function inPool(items, width, fn) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index], index);
    }
  }));
  return results;
}

// The shared fixture: a provider with an RS256 and an ES256 key, and a docgate trusting it with
// the default key refresh interval (30 s).
let keys;
let provider;
let docgate;
before(async () => {
  keys = await generateKeys();
  provider = await startProvider({ keys: [keys.rs, keys.es] });
  docgate = await startDocgate(oidcEnv(provider.issuer));
});
after(async () => {
  await docgate?.stop();
  await provider?.stop();
});

test('the binary knows the DOCGATE_OIDC_* settings', () => {
  const reference = execFileSync(BINARY, ['config-reference'], { encoding: 'utf8' });
  for (const name of ['DOCGATE_OIDC_ISSUER', 'DOCGATE_OIDC_AUDIENCE', 'DOCGATE_OIDC_ROLES_CLAIM',
    'DOCGATE_OIDC_ROLE_MAP', 'DOCGATE_OIDC_KEYS_REFRESH_MS']) {
    assert.ok(reference.includes(name), `docgate config-reference does not list ${name}`);
  }
});

test('real client-credentials tokens, RS256 and ES256, create a document as their sub', async () => {
  for (const alg of ['RS256', 'ES256']) {
    const token = await provider.clientCredentialsToken({ alg });
    const { header, payload } = decodeToken(token);
    assert.equal(header.alg, alg);
    assert.equal(header.kid, alg === 'RS256' ? keys.rs.kid : keys.es.kid);
    assert.equal(payload.iss, provider.issuer);
    assert.deepEqual(payload.groups, ['kb-writers', 'kb-reviewers']);
    assertCreated(await createDocument(docgate, token), payload.sub, `real ${alg} token`);
  }
});

test('/readyz: checks.identity is "ok" while the issuer is reachable', async () => {
  let last;
  await eventually(async () => {
    last = await readyz(docgate);
    return last.json?.checks?.identity === 'ok';
  }, 'checks.identity "ok"', 10_000)
    .catch((error) => { throw new Error(`${error.message}; last /readyz: ${last?.status} ${last?.text}`); });
  assert.equal(last.status, 200, last.text);
});

test('a real token whose groups lack kb-writers is authenticated but not an author: 403', async () => {
  const readers = await startProvider({ keys: [generateKey('RS256')], roles: ['kb-reviewers'] });
  const other = await startDocgate(oidcEnv(readers.issuer)).catch(async (error) => {
    await readers.stop();
    throw error;
  });
  try {
    const token = await readers.clientCredentialsToken({ alg: 'RS256' });
    assert.deepEqual(decodeToken(token).payload.groups, ['kb-reviewers']);
    const created = await createDocument(other, token);
    assert.equal(created.status, 403, `expected 403, got ${describe(created)}`);
    assert.match(created.headers.get('content-type') ?? '', /^application\/problem\+json/, describe(created));
    assert.equal(created.json?.code, 'FORBIDDEN', describe(created));
    // Authenticated: a route open to any role answers.
    const listed = await other.api(token, 'GET', '/api/v1/documents');
    assert.equal(listed.status, 200, `GET /api/v1/documents: ${describe(listed)}`);
  } finally {
    await other.stop();
    await readers.stop();
  }
});

test('crafted tokens signed with the provider\'s keys: what is accepted', async () => {
  const iss = provider.issuer;
  const accepted = [
    ['a well-formed RS256 token', keys.rs, {}, {}],
    ['a well-formed ES256 token', keys.es, {}, {}],
    ['exp 30 s in the past (within the 60 s leeway)', keys.rs, {}, { exp: now() - 30 }],
    ['aud a list holding docgate', keys.rs, {}, { aud: ['another-api', 'docgate'] }],
    ['groups as one space-separated string', keys.es, {}, { groups: 'kb-readers kb-writers' }],
  ];
  for (const [what, key, header, over] of accepted) {
    const body = claims(iss, over);
    assertCreated(await createDocument(docgate, signToken(key, header, body)), body.sub, what);
  }
});

test('crafted tokens signed with the provider\'s keys: what is refused (401 UNAUTHENTICATED)', async () => {
  const iss = provider.issuer;
  const rsPublic = crypto.createPublicKey({ key: keys.rs, format: 'jwk' });
  const unpublished = generateKey('RS256', keys.rs.kid);  // same kid as a published key
  // The 401s below mean something only if a well-formed token passes.
  const control = claims(iss);
  assertCreated(await createDocument(docgate, signToken(keys.rs, {}, control)), control.sub, 'the control');
  const refused = [
    ['exp 120 s in the past', signToken(keys.rs, {}, claims(iss, { exp: now() - 120 }))],
    ['nbf 120 s in the future', signToken(keys.rs, {}, claims(iss, { nbf: now() + 120 }))],
    ['another iss', signToken(keys.rs, {}, claims(iss, { iss: `${iss}/other` }))],
    ['another iss (a different host)', signToken(keys.rs, {}, claims(iss, { iss: 'https://idp.example.com' }))],
    ['aud another value', signToken(keys.rs, {}, claims(iss, { aud: 'another-api' }))],
    ['aud a list without docgate', signToken(keys.rs, {}, claims(iss, { aud: ['another-api'] }))],
    ['no exp', signToken(keys.rs, {}, claims(iss, { exp: undefined }))],
    ['no sub', signToken(keys.rs, {}, claims(iss, { sub: undefined }))],
    ['alg none, empty signature, the RSA kid', signToken(keys.rs, { alg: 'none' }, claims(iss))],
    ['alg none, empty signature, no kid', signToken(null, { alg: 'none' }, claims(iss))],
    ['HS256 keyed with the RSA public key (SPKI PEM)', signToken(
      rsPublic.export({ type: 'spki', format: 'pem' }), { alg: 'HS256', kid: keys.rs.kid }, claims(iss))],
    ['HS256 keyed with the RSA public key (PKCS#1 PEM)', signToken(
      rsPublic.export({ type: 'pkcs1', format: 'pem' }), { alg: 'HS256', kid: keys.rs.kid }, claims(iss))],
    ['an ES256 header with the RSA key\'s kid', signToken(keys.es, { alg: 'ES256', kid: keys.rs.kid }, claims(iss))],
    ['an RS256 header with the EC key\'s kid', signToken(keys.rs, { alg: 'RS256', kid: keys.es.kid }, claims(iss))],
    ['a key the provider does not publish, under a published kid', signToken(unpublished, {}, claims(iss))],
    ['an unknown kid', signToken(keys.rs, { kid: `unknown-${crypto.randomUUID()}` }, claims(iss))],
  ];
  const failures = [];
  for (const [what, token] of refused) {
    try {
      assertUnauthenticated(await createDocument(docgate, token), what);
    } catch (error) {
      failures.push(error.message);
    }
  }
  assert.deepEqual(failures, [], `${failures.length} of ${refused.length} crafted tokens were not refused`);
});

test('a flood of unknown kids: all 401, and the JWKS is fetched at most once more', async (t) => {
  // A provider and a docgate (default refresh interval, 30 s) of its own: what it counts is this
  // docgate's fetches only, whatever the other cases did.
  const floodKeys = await generateKeys();
  const floodProvider = await startProvider({ keys: [floodKeys.rs, floodKeys.es] });
  const flooded = await startDocgate(oidcEnv(floodProvider.issuer)).catch(async (error) => {
    await floodProvider.stop();
    throw error;
  });
  try {
    // The keys are in docgate's cache: a valid token passes first.
    const valid = claims(floodProvider.issuer);
    assertCreated(await createDocument(flooded, signToken(floodKeys.rs, {}, valid)), valid.sub, 'before the flood');
    const jwksBefore = floodProvider.jwksRequests();
    const started = Date.now();
    const responses = await inPool(Array.from({ length: 200 }, (_, i) => i), 20, async () => {
      const kid = crypto.randomBytes(12).toString('base64url');
      return createDocument(flooded, signToken(floodKeys.rs, { kid }, claims(floodProvider.issuer)));
    });
    const elapsed = Date.now() - started;
    const wrong = responses.filter((r) => r.status !== 401 || r.json?.code !== 'UNAUTHENTICATED');
    assert.deepEqual(wrong.map(describe), [], `${wrong.length} of 200 were not 401 UNAUTHENTICATED`);
    const fetched = floodProvider.jwksRequests() - jwksBefore;
    t.diagnostic(`JWKS fetched ${jwksBefore} time(s) before the flood, ${fetched} during it (200 unknown kids in ${elapsed} ms)`);
    assert.ok(fetched <= 1, `the flood (${elapsed} ms) made docgate fetch the JWKS ${fetched} times`);
    // The cache survived the flood.
    const later = claims(floodProvider.issuer);
    assertCreated(await createDocument(flooded, signToken(floodKeys.es, {}, later)), later.sub, 'after the flood');
  } finally {
    await flooded.stop();
    await floodProvider.stop();
  }
});

test('issuer unreachable at start: docgate serves, identity degraded, HS256 tokens work', async () => {
  const port = await closedPort();
  const lonely = await startDocgate(oidcEnv(`http://127.0.0.1:${port}`));
  try {
    const seen = [];
    let last;
    await eventually(async () => {
      last = await readyz(lonely);
      seen.push(`${last.status} ${last.json?.checks?.identity}`);
      return last.json?.checks?.identity === 'degraded';
    }, 'checks.identity "degraded"', 10_000)
      .catch((error) => { throw new Error(`${error.message}; last /readyz: ${last?.status} ${last?.text}`); });
    assert.equal(last.status, 200, last.text);
    assert.equal(last.json.status, 'degraded', last.text);
    assert.equal(last.json.checks.database, 'ok', last.text);
    assert.ok(!seen.some((s) => s.endsWith(' ok')), `identity was "ok" with no issuer: ${seen.join(', ')}`);
    const created = await createDocument(lonely, lonely.token('alice', 'author'));
    assertCreated(created, 'alice', 'an HS256 token while the issuer is unreachable');
  } finally {
    await lonely.stop();
  }
});

test('key rotation while requests flow: old-key tokens stay accepted, the new key is taken up', async (t) => {
  const oldKey = generateKey('RS256');
  const newKey = generateKey('RS256');
  let rotating = await startProvider({ keys: [oldKey] });
  const { issuer, port } = rotating;
  const rotated = await startDocgate(oidcEnv(issuer, { DOCGATE_OIDC_KEYS_REFRESH_MS: '1000' }))
    .catch(async (error) => {
      await rotating.stop();
      throw error;
    });
  const results = [];  // every old-key request: the phase it was sent in and its answer
  let phase = 'old provider up';
  let running = true;
  let loopFailure = null;
  let loop;
  try {
    const oldClaims = claims(issuer, { sub: 'rotation-old' });
    assertCreated(await createDocument(rotated, signToken(oldKey, {}, oldClaims)), 'rotation-old', 'old key, first');

    loop = (async () => {
      while (running) {
        const sentIn = phase;
        try {
          const response = await createDocument(rotated, signToken(oldKey, {}, claims(issuer, { sub: 'rotation-old' })));
          results.push({ phase: sentIn, status: response.status, body: response.status === 201 ? '' : response.text });
        } catch (error) {  // no answer at all (docgate gone?): recorded, and the loop ends
          results.push({ phase: sentIn, status: 'no answer', body: error.message });
          loopFailure = new Error(`an old-key request got no answer: ${error.message}\n${rotated.log()}`);
          return;
        }
      }
    })();
    const countIn = (which) => {
      if (loopFailure) throw loopFailure;
      return results.filter((r) => r.phase === which).length;
    };

    await eventually(() => countIn('old provider up') >= 5, 'old-key requests while the old provider is up');
    await rotating.stop();
    phase = 'provider down';
    await eventually(() => countIn('provider down') >= 5, 'old-key requests while the provider is down');
    rotating = await startProvider({ keys: [newKey, oldKey], port });
    assert.equal(rotating.issuer, issuer);
    phase = 'new provider up';

    // The new key is taken up: polled, bounded by 60 s.
    const newClaims = claims(issuer, { sub: 'rotation-new' });
    const newToken = signToken(newKey, {}, newClaims);
    let lastNew;
    const started = Date.now();
    await eventually(async () => {
      lastNew = await createDocument(rotated, newToken);
      return lastNew.status === 201;
    }, 'the new key to be accepted', PATIENCE_MS)
      .catch((error) => { throw new Error(`${error.message}; last answer: ${describe(lastNew)}`); });
    const tookUp = Date.now() - started;
    t.diagnostic(`the new key was accepted ${tookUp} ms after the new provider started`);
    assertCreated(lastNew, 'rotation-new', `new key (after ${tookUp} ms)`);
    // A real token of the new provider is signed with the new key, and accepted too.
    const real = await rotating.clientCredentialsToken({ alg: 'RS256' });
    assert.equal(decodeToken(real).header.kid, newKey.kid);
    assertCreated(await createDocument(rotated, real), decodeToken(real).payload.sub, 'real token, new key');

    const sofar = countIn('new provider up');
    await eventually(() => countIn('new provider up') >= sofar + 5, 'old-key requests after the rotation');
  } finally {
    running = false;
    await loop;
    await rotated.stop();
    await rotating.stop();
  }
  const counts = Object.fromEntries(['old provider up', 'provider down', 'new provider up']
    .map((which) => [which, results.filter((r) => r.phase === which).length]));
  t.diagnostic(`old-key requests per phase: ${JSON.stringify(counts)}`);
  const refused = results.filter((r) => r.status !== 201);
  assert.deepEqual(refused.slice(0, 10), [],
    `${refused.length} of ${results.length} old-key requests were not 201 (per phase: ${JSON.stringify(counts)})`);
  for (const [which, count] of Object.entries(counts)) assert.ok(count >= 5, `${count} requests ${which}`);
});
