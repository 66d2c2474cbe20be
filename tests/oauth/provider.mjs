// A real OpenID provider (oidc-provider, OpenID Certified) on loopback for the OAuth tests:
// a client-credentials client, resource indicators (RFC 8707) issuing JWT access tokens for
// the MCP server's resource (opaque ones for the `mcp-opaque` client), introspection, and a
// few test-only routes under /test/: rotate the signing key, count key-set fetches, and forge
// tokens the provider would never mint (expired, not yet valid, alg none, HS256 keyed with
// the public key, another issuer's).
//
// Usage: node provider.mjs PORT NODE_MODULES_DIR. Prints "listening ISSUER" once it serves;
// exits when its standard input closes (the test process that started it ended).
import { createHmac, createSign, generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [port, modules] = process.argv.slice(2);
const { default: Provider } = await import(pathToFileURL(join(modules, 'oidc-provider', 'lib', 'index.js')));

const issuer = `http://127.0.0.1:${port}`;
const scopes = ['mcp', 'tools:read', 'tools:write'];

function newKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

const publicJwk = ({ kty, n, e, kid, alg, use }) => ({ kty, n, e, kid, alg, use });

// The signing key first; the previous one stays published so tokens it signed still verify.
let keys = [newKey()];
let jwksFetches = 0;

function client(id, secret, scope) {
  return {
    client_id: id,
    client_secret: secret,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
    ...(scope ? { scope } : {}),
  };
}

function build() {
  const provider = new Provider(issuer, {
    clients: [
      client('mcp-agent', 'agent-secret', 'mcp tools:read tools:write'),
      client('mcp-reader', 'reader-secret', 'mcp tools:read'),
      client('mcp-opaque', 'opaque-secret', 'mcp tools:read'),
      // The MCP server itself, for introspection.
      { ...client('mcp-server', 'server-secret', ''), grant_types: [] },
    ],
    jwks: { keys },
    scopes,
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource, client) => ({
          scope: scopes.join(' '),
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: client.clientId === 'mcp-opaque' ? 'opaque' : 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  provider.on('server_error', (ctx, error) => console.error('provider error', error));
  return provider;
}

let provider = build();
let handler = provider.callback();

const b64 = (value) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

// A compact JWS of `claims` (defaults: a good token for `audience`), signed as `mode` says.
function forge({ mode = 'rs256', claims = {}, kid, audience }) {
  const now = Math.floor(Date.now() / 1000);
  const body = { iss: issuer, sub: 'mcp-agent', client_id: 'mcp-agent', aud: audience, scope: 'mcp tools:read tools:write', iat: now, exp: now + 300, jti: randomUUID(), ...claims };
  const key = keys[0];
  if (mode === 'none') {
    return `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(body)}.`;
  }
  if (mode === 'hs256-public') {
    // The classic confusion: HMAC keyed with the public key's bytes, which anyone can read.
    const header = { alg: 'HS256', typ: 'at+jwt', kid: key.kid };
    const input = `${b64(header)}.${b64(body)}`;
    const secret = JSON.stringify(publicJwk(key));
    return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
  }
  const signer = mode === 'stranger' ? newKey() : key;
  const header = { alg: 'RS256', typ: 'at+jwt', kid: kid ?? signer.kid };
  const input = `${b64(header)}.${b64(body)}`;
  const signature = createSign('RSA-SHA256').update(input).sign({ key: signer, format: 'jwk' }).toString('base64url');
  return `${input}.${signature}`;
}

async function readJson(request) {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text ? JSON.parse(text) : {};
}

const server = createServer(async (request, response) => {
  const reply = (status, body) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  if (request.url === '/jwks') jwksFetches += 1;
  if (request.url === '/test/rotate' && request.method === 'POST') {
    keys = [newKey(), keys[0]];
    provider = build();
    handler = provider.callback();
    return reply(200, { kid: keys[0].kid });
  }
  if (request.url === '/test/jwks-fetches') return reply(200, { fetches: jwksFetches });
  if (request.url === '/test/forge' && request.method === 'POST') {
    return reply(200, { token: forge(await readJson(request)) });
  }
  return handler(request, response);
});

server.listen(Number(port), '127.0.0.1', () => console.log(`listening ${issuer}`));
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
