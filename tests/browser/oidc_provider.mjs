// A real OpenID Connect provider for docgate's tests: the npm package `oidc-provider` (see
// package.json for the exact version) on 127.0.0.1, signing with the private JWKs a test hands it.
//
//   const { rs, es } = await generateKeys();            // RS256 and ES256 (P-256), random kids
//   const provider = await startProvider({ keys: [rs, es] });
//   provider.issuer                                      // http://127.0.0.1:<port>
//   await provider.clientCredentialsToken({ alg: 'ES256' })  // a JWT access token from /token
//   provider.jwksRequests()                              // GETs its jwks_uri has served
//   await provider.stop();
//   signToken(rs, { exp: ... }, { sub: 'alice', ... })   // a token crafted with the same keys
//
// The access tokens are the provider's own: the client_credentials grant of the confidential
// client `docgate` (client_secret_basic), in JWT format (features.resourceIndicators), with
// `aud: "docgate"`, `sub: "docgate"` (the client id), and the extra claims `groups` (`roles`, by
// default ["kb-writers", "kb-reviewers"]) and `name` (by default 张三). The signing algorithm is
// chosen by the resource indicator asked for: `urn:docgate:rs256` or `urn:docgate:es256`, one per
// algorithm, both with the audience `docgate`; RS256 is the default resource of that grant.
//
// `port` (0 or omitted: a free one) lets a test stop a provider and start another one under the
// same issuer URL, with other keys (key rotation). Nothing is persisted: oidc-provider's
// in-memory adapter lives and dies with the provider.
//
// Sign-in (authorization code flow), enabled by the option `redirectUris`:
//
//   const provider = await startProvider({
//     keys: [rs, es],
//     redirectUris: ['http://127.0.0.1:8080/auth/callback'],  // exact match, port included
//     postLogoutRedirectUris: ['http://127.0.0.1:8080/'],     // for end_session (optional)
//     idTokenAlg: 'ES256',                                    // the ID token's alg; RS256 default
//     users: { zhangsan: { name: '张三', groups: ['kb-writers'] } },  // default: USERS below
//   });
//   provider.allowRedirectUris([...], [...])  // more URIs on the live client (e.g. once
//                                             // docgate's port is known; needs redirectUris: [])
//
// The client `docgate` then also has grant_types authorization_code, response_types ['code'] and
// id_token_signed_response_alg `idTokenAlg`; PKCE is required (code_challenge_method S256 only;
// plain is refused) and the code is exchanged at the token endpoint with client_secret_basic
// (CLIENT_ID:CLIENT_SECRET) and the code_verifier. Scopes: `openid`; `profile` gives `name`,
// `preferred_username` and `groups`; `groups` gives `groups` alone. These claims are IN THE ID
// TOKEN (conformIdTokenClaims: false), and in the userinfo response. `sub` is the login.
// The authorization response carries `code`, `state` and `iss` (RFC 9207) in the query.
//
// How a test signs in, in a browser (Chromium through playwright-core) sent to the authorization
// endpoint (provider.discovery.authorization_endpoint, with response_type=code, client_id=docgate,
// redirect_uri, scope 'openid profile groups', state, nonce, code_challenge, S256):
//   1. the provider's own login page (oidc-provider's devInteractions) at
//      <issuer>/interaction/<uid>: fill  input[name="login"]  with a login of `users` (e.g.
//      zhangsan) and  input[name="password"]  with anything (it is not checked), then click
//      button[type="submit"]  (text "Sign-in"). A login that `users` lacks is not an account:
//      the login form comes back (empty, no message), never a code.
//   2. no consent page: this first-party client is granted every scope and claim it asks for
//      (loadExistingGrant), so the browser goes straight to redirect_uri?code=...&state=...&iss=...
// The provider remembers the sign-in in its cookies (op_session etc., on 127.0.0.1 and so shared
// with a docgate there, hence names of their own): a second authorization request in the same
// browser context returns a code at once, without the form, unless prompt=login is asked for,
// the context is a new one, or the session was ended.
//
// Sign-out: the discovery document's end_session_endpoint with id_token_hint and
// post_logout_redirect_uri (one of `postLogoutRedirectUris`; `state` is passed back). The
// provider's "Do you want to sign-out?" page confirms itself (a script clicks "Yes, sign me out"),
// so the browser lands on post_logout_redirect_uri?state=... with the provider's session ended.
//
// Every page the provider renders is self-contained: the Google Fonts @import of oidc-provider's
// built-in pages is cut out, so nothing leaves 127.0.0.1.
import crypto from 'node:crypto';
import http from 'node:http';
import Provider, { errors, interactionPolicy } from 'oidc-provider';

export const CLIENT_ID = 'docgate';
export const CLIENT_SECRET = 'docgate-test-client-secret-7f3a9c1e5b';
export const AUDIENCE = 'docgate';
// The resource indicators, one per signing algorithm of the access tokens.
export const RESOURCES = { RS256: 'urn:docgate:rs256', ES256: 'urn:docgate:es256' };

// A fresh RS256 key (2048 bits) and a fresh ES256 key (P-256), as private JWKs with random kids.
export async function generateKeys() {
  return { rs: generateKey('RS256'), es: generateKey('ES256') };
}

// One private JWK for `alg` ('RS256' or 'ES256'), with `kid` (random unless given) and use: sig.
export function generateKey(alg, kid = crypto.randomBytes(12).toString('base64url')) {
  const { privateKey } = alg === 'RS256'
    ? crypto.generateKeyPairSync('rsa', { modulusLength: 2048 })
    : crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' };
}

// The public part of a private JWK (what a JWKS publishes).
export function publicJwk(jwk) {
  const { d, p, q, dp, dq, qi, ...rest } = jwk;
  return rest;
}

// A compact JWS of `claims`. The header is { alg: jwk.alg, typ: 'at+jwt', kid: jwk.kid } with
// `header`'s members over it (a member set to undefined is left out). header.alg decides how:
//   RS256: RSASSA-PKCS1-v1_5 with SHA-256, `key` a private RSA JWK;
//   ES256: ECDSA P-256 with SHA-256, raw r||s (ieee-p1363), `key` a private EC JWK;
//   HS256: HMAC-SHA-256 with `key` as the secret itself (a string or a Buffer);
//   none:  an empty signature, `key` unused.
export function signToken(key, header, claims) {
  const fullHeader = Object.fromEntries(Object.entries({
    alg: key?.alg, typ: 'at+jwt', kid: key?.kid, ...header,
  }).filter(([, value]) => value !== undefined));
  const encode = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode(fullHeader)}.${encode(claims)}`;
  let signature;
  switch (fullHeader.alg) {
    case 'RS256':
      signature = crypto.sign('sha256', Buffer.from(input), {
        key: crypto.createPrivateKey({ key, format: 'jwk' }),
        padding: crypto.constants.RSA_PKCS1_PADDING,
      });
      break;
    case 'ES256':
      signature = crypto.sign('sha256', Buffer.from(input), {
        key: crypto.createPrivateKey({ key, format: 'jwk' }),
        dsaEncoding: 'ieee-p1363',
      });
      break;
    case 'HS256':
      signature = crypto.createHmac('sha256', key).update(input).digest();
      break;
    case 'none':
      signature = Buffer.alloc(0);
      break;
    default:
      throw new Error(`signToken: unsupported alg ${fullHeader.alg}`);
  }
  return `${input}.${signature.toString('base64url')}`;
}

// The claims of a compact JWS and its header, not verified (for tests that look inside).
export function decodeToken(token) {
  const [header, payload] = token.split('.').slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')));
  return { header, payload };
}

// The accounts of the sign-in by default: login -> claims. `name` and `preferred_username` (the
// login when left out; null: no such claim) and `groups` go into the ID token.
export const USERS = Object.freeze({
  zhangsan: Object.freeze({ name: '张三', groups: Object.freeze(['kb-writers']) }),
  lisi: Object.freeze({ name: '李四', groups: Object.freeze(['kb-reviewers']) }),
});

// Starts oidc-provider on 127.0.0.1:`port` with `keys` (private JWKs, the first of an alg signs).
// `roles` and `name`: the claims of client_credentials access tokens. `redirectUris` (an array,
// may be empty) enables the authorization code flow; `postLogoutRedirectUris`, `users` and
// `idTokenAlg` ('RS256' or 'ES256') go with it. See the top of this file.
export async function startProvider({
  keys, port = 0, roles, name, redirectUris, postLogoutRedirectUris = [], users = USERS,
  idTokenAlg = 'RS256',
} = {}) {
  if (!Array.isArray(keys) || keys.length === 0) throw new Error('startProvider: keys are required');
  if (!keys.some((key) => key.alg === idTokenAlg)) {
    throw new Error(`startProvider: no key for idTokenAlg ${idTokenAlg}`);
  }
  if (redirectUris !== undefined && !Array.isArray(redirectUris)) {
    throw new Error('startProvider: redirectUris must be an array');
  }
  const codeFlow = Array.isArray(redirectUris);
  const groups = roles ?? ['kb-writers', 'kb-reviewers'];
  const displayName = name ?? '张三';
  const accounts = new Map(Object.entries(users));

  // Listen first: the issuer URL needs the port, and the provider is built for that issuer.
  const server = http.createServer();
  const sockets = new Set();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  const issuer = `http://127.0.0.1:${server.address().port}`;

  const resourceServers = Object.fromEntries(Object.entries(RESOURCES).map(([alg, indicator]) => [
    indicator,
    { scope: 'documents', audience: AUDIENCE, accessTokenFormat: 'jwt', accessTokenTTL: 600, jwt: { sign: { alg } } },
  ]));

  // The client's metadata must hold a redirect URI when it has response types: a placeholder
  // when the test gives none yet, taken off the live client below.
  const PLACEHOLDER = 'http://127.0.0.1/placeholder-redirect-uri';
  const provider = new Provider(issuer, {
    clients: [{
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      grant_types: codeFlow ? ['client_credentials', 'authorization_code'] : ['client_credentials'],
      redirect_uris: codeFlow ? (redirectUris.length ? [...redirectUris] : [PLACEHOLDER]) : [],
      response_types: codeFlow ? ['code'] : [],
      ...(codeFlow ? { post_logout_redirect_uris: [...postLogoutRedirectUris] } : {}),
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: idTokenAlg,
    }],
    jwks: { keys: keys.map((key) => structuredClone(key)) },
    cookies: {
      keys: [crypto.randomBytes(32).toString('base64url')],
      // Names of their own: cookies do not tell ports apart, a docgate on 127.0.0.1 sees these.
      names: { session: 'op_session', interaction: 'op_interaction', resume: 'op_interaction_resume' },
      // SameSite=None without Secure is refused by Chromium, and the issuer is plain http.
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    claims: {
      acr: null, sid: null, auth_time: null, iss: null,
      openid: ['sub'],
      profile: ['name', 'preferred_username', 'groups'],
      groups: ['groups'],
    },
    // Scope-requested claims in the ID token too, not only at the userinfo endpoint.
    conformIdTokenClaims: false,
    findAccount: async (ctx, sub) => {
      const user = accounts.get(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: async () => Object.fromEntries(Object.entries({
          sub,
          name: user.name,
          preferred_username: user.preferred_username === undefined ? sub : user.preferred_username,
          groups: user.groups === undefined ? undefined : [...user.groups],
        }).filter(([, value]) => value !== undefined && value !== null)),
      };
    },
    // No consent page for the first-party client: its grant holds all it asks for.
    loadExistingGrant: async (ctx) => {
      const { oidc } = ctx;
      const grantId = oidc.result?.consent?.grantId || oidc.session.grantIdFor(oidc.client.clientId);
      let grant = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
      if (oidc.client.clientId !== CLIENT_ID) return grant;
      grant ??= new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
      grant.addOIDCScope([...oidc.requestParamOIDCScopes].join(' '));
      if (oidc.requestParamClaims.size) grant.addOIDCClaims([...oidc.requestParamClaims]);
      for (const [indicator, resourceServer] of Object.entries(oidc.resourceServers)) {
        const scopes = [...oidc.requestParamScopes].filter((scope) => resourceServer.scopes.has(scope));
        if (scopes.length) grant.addResourceScope(indicator, scopes.join(' '));
      }
      await grant.save();
      return grant;
    },
    pkce: { methods: ['S256'], required: () => true },
    interactions: { policy: signInPolicy() },
    features: {
      // The built-in login form (login, password); its submit is the interaction's POST.
      devInteractions: { enabled: codeFlow },
      clientCredentials: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource: confirmingLogoutSource },
      resourceIndicators: {
        enabled: true,
        // client_credentials tokens go to urn:docgate:rs256 unless asked otherwise; sign-in's
        // access token (no resource asked) is the opaque one for the userinfo endpoint.
        defaultResource: async (ctx) => (ctx.oidc.params?.grant_type === 'client_credentials'
          ? RESOURCES.RS256 : undefined),
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx, indicator) => {
          const info = resourceServers[indicator];
          if (!info) throw new errors.InvalidTarget();
          return info;
        },
      },
    },
    ttl: {
      ClientCredentials: 600, AccessToken: 3600, AuthorizationCode: 60, IdToken: 3600,
      Interaction: 3600, Grant: 14 * 24 * 3600, Session: 14 * 24 * 3600,
    },
    extraTokenClaims: async (ctx, token) => {
      const user = token.accountId === undefined ? undefined : accounts.get(token.accountId);
      if (user) return { groups: [...(user.groups ?? [])], ...(user.name ? { name: user.name } : {}) };
      return { groups, name: displayName };
    },
  });

  // The live client: redirect URIs can be added to it after the start.
  const client = codeFlow ? await provider.Client.find(CLIENT_ID) : undefined;
  if (client && !redirectUris.length) client.redirectUris.splice(0, Infinity);

  // The built-in pages @import Google Fonts: cut out, nothing leaves 127.0.0.1.
  provider.use(async (ctx, next) => {
    await next();
    if (typeof ctx.body === 'string' && /html/.test(ctx.type)) {
      ctx.body = ctx.body.replace(/@import url\(https:\/\/fonts\.googleapis\.com[^)]*\);?/g, '');
    }
  });

  // Count the GETs the JWKS endpoint answers (its path is taken from the discovery document's
  // jwks_uri, which is <issuer>/jwks by default).
  let jwksRequests = 0;
  let jwksPath = '/jwks';
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.method === 'GET' && ctx.path === jwksPath && ctx.status === 200) jwksRequests += 1;
  });
  server.on('request', provider.callback());

  const discovery = (await request(`${issuer}/.well-known/openid-configuration`)).json;
  jwksPath = new URL(discovery.jwks_uri).pathname;

  return {
    issuer,
    port: server.address().port,
    discovery,
    jwksRequests: () => jwksRequests,

    // Adds redirect URIs (and post-logout ones) to the live client `docgate`; the code flow must
    // have been enabled at the start (redirectUris: [] will do).
    allowRedirectUris(more = [], morePostLogout = []) {
      if (!client) throw new Error('allowRedirectUris: start the provider with redirectUris');
      client.redirectUris.push(...more);
      client.postLogoutRedirectUris ??= [];
      client.postLogoutRedirectUris.push(...morePostLogout);
    },

    // A JWT access token from the token endpoint (client_credentials), signed with `alg`.
    async clientCredentialsToken({ alg = 'RS256' } = {}) {
      const resource = RESOURCES[alg];
      if (!resource) throw new Error(`clientCredentialsToken: no resource for alg ${alg}`);
      const response = await request(discovery.token_endpoint, {
        method: 'POST',
        headers: {
          Authorization: `Basic ${Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`).toString('base64')}`,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'documents' }).toString(),
      });
      if (response.status !== 200 || !response.json?.access_token) {
        throw new Error(`token endpoint: ${response.status} ${response.text}`);
      }
      return response.json.access_token;
    },

    async stop() {
      await new Promise((resolve) => {
        server.close(resolve);
        for (const socket of sockets) socket.destroy();  // keep-alive connections too
      });
    },
  };
}

// oidc-provider's prompts (login, then consent) and one more login check: a signed-in login
// that findAccount does not know (devInteractions takes any) asks for the login form again,
// instead of the server_error the provider would otherwise end in.
function signInPolicy() {
  const { Check, base } = interactionPolicy;
  const policy = base();
  policy.get('login').checks.add(new Check('unknown_account', 'the login is not an account',
    (ctx) => (ctx.oidc.session.accountId && !ctx.oidc.account
      ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT)));
  return policy;
}

// The "Do you want to sign-out?" page of end_session, answering "yes" by itself: `form` is the
// provider's form (id op.logoutForm, with its xsrf field); the button is oidc-provider's own.
async function confirmingLogoutSource(ctx, form) {
  ctx.type = 'html';
  ctx.body = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign out</title></head>
<body>
  <h1>Signing out of ${ctx.host}</h1>
  ${form}
  <button id="op-logout-yes" type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
  <script>document.getElementById('op-logout-yes').click();</script>
</body>
</html>`;
}

// One HTTP request on a connection of its own (no keep-alive pool): a provider restarted on the
// same port must not meet a pooled socket of the one before it.
function request(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method, headers, agent: false }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json = null;
        try { json = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: response.statusCode, text, json });
      });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
