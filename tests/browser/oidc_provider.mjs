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
// algorithm, both with the audience `docgate`; RS256 is the default resource.
//
// `port` (0 or omitted: a free one) lets a test stop a provider and start another one under the
// same issuer URL, with other keys (key rotation). Nothing is persisted: oidc-provider's
// in-memory adapter lives and dies with the provider.
import crypto from 'node:crypto';
import http from 'node:http';
import Provider, { errors } from 'oidc-provider';

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

// Starts oidc-provider on 127.0.0.1:`port` with `keys` (private JWKs, the first of an alg signs).
export async function startProvider({ keys, port = 0, roles, name } = {}) {
  if (!Array.isArray(keys) || keys.length === 0) throw new Error('startProvider: keys are required');
  const groups = roles ?? ['kb-writers', 'kb-reviewers'];
  const displayName = name ?? '张三';

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

  const provider = new Provider(issuer, {
    clients: [{
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
    }],
    jwks: { keys: keys.map((key) => structuredClone(key)) },
    cookies: { keys: [crypto.randomBytes(32).toString('base64url')] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => RESOURCES.RS256,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx, indicator) => {
          const info = resourceServers[indicator];
          if (!info) throw new errors.InvalidTarget();
          return info;
        },
      },
    },
    ttl: { ClientCredentials: 600 },
    extraTokenClaims: async () => ({ groups, name: displayName }),
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
