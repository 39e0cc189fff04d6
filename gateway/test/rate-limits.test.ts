import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadConfig, MODULES, type ModuleName } from '@church/common';
import { buildGateway } from '../src/app';
import { gatewayConfig } from '../src/config';
import { progressiveDelayMs, routePath } from '../src/limits';

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

describe('routePath', () => {
  it('reads a path as the services’ router matches it', () => {
    expect(routePath('/membership/users/login')).toBe('/membership/users/login');
    expect(routePath('/Membership/Users/LOGIN/?next=/x')).toBe('/membership/users/login');
    expect(routePath('/membership/users/%6Cogin')).toBe('/membership/users/login');
    expect(routePath('/%6d%65mbership/users/login#top')).toBe('/membership/users/login');
    expect(routePath('http://gateway.example/membership/users/login?x=1')).toBe('/membership/users/login');
    expect(routePath('/')).toBe('/');
  });

  it('keeps what the router keeps: reserved escapes, one decoding of %25, a second trailing slash', () => {
    expect(routePath('/membership/users%2Flogin')).toBe('/membership/users%2flogin');
    expect(routePath('/membership/users/%256Cogin')).toBe('/membership/users/%256cogin');
    expect(routePath('/membership/users/login//')).toBe('/membership/users/login/');
  });

  it('has no path for a malformed escape', () => {
    expect(routePath('/membership/users/%zzlogin')).toBeUndefined();
    expect(routePath('/membership/users/login%')).toBeUndefined();
    expect(routePath('/membership/users/%C0login')).toBeUndefined();
    // The query is not the router's: it is left to the service.
    expect(routePath('/membership/users/login?x=%zz')).toBe('/membership/users/login');
  });
});

// The limits against a stand-in service: what is counted, what is answered, and what still reaches the service.
describe('gateway rate limits', () => {
  const seen: Seen[] = [];
  let firstChunk: (() => void) | undefined;
  let service: Server;
  let gateway: FastifyInstance;
  let url: string;

  const startGateway = async (env: Record<string, string>) => {
    const upstreams = Object.fromEntries(MODULES.map((m) => [m, urlOf(service)])) as Record<ModuleName, string>;
    const app = await buildGateway(loadConfig(gatewayConfig, { LOG_LEVEL: 'silent', TRUST_PROXY: 'true', ...env }), upstreams);
    await app.listen({ host: '127.0.0.1', port: 0 });
    return app;
  };

  beforeAll(async () => {
    service = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => {
        if (!chunks.length) firstChunk?.();
        chunks.push(chunk);
      });
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        seen.push({ url: req.url!, headers: req.headers, body });
        // The stand-in refuses one password, as membership refuses a wrong one.
        if (body.includes('wrong-password')) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"errors":["Invalid email or password"]}');
        // ... and a wrong emailed code, as membership's verifyCode does (a 400 naming `code`)
        if (body.includes('"000000"')) return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"errors":[{"msg":"The code is wrong or has expired","param":"code","location":"body"}]}');
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    // Client addresses come from X-Forwarded-For (TRUST_PROXY), so each test is its own set of clients.
    gateway = await startGateway({ RATE_LIMIT_MAX: '3', RATE_LIMIT_EMAIL_MAX: '2', RATE_LIMIT_EMAIL_WINDOW_MS: '120000', BODY_LIMIT: '4096' });
    url = urlOf(gateway.server);
  });
  afterAll(async () => {
    await gateway.close();
    await new Promise((resolve) => service.close(resolve));
  });
  beforeEach(() => (seen.length = 0));

  const post = (path: string, ip: string, body: string, contentType = 'application/json', base = url) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': contentType, 'x-forwarded-for': ip }, body });

  /** A chunked POST written in parts; `between` runs after the first part is sent. */
  const postInParts = (path: string, ip: string, parts: Buffer[], between: () => Promise<void> = async () => undefined, base = url) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', 'x-forwarded-for': ip } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.write(parts[0]);
      void between().then(() => {
        for (const part of parts.slice(1)) req.write(part);
        req.end();
      }, reject);
    });

  it('counts every spelling of a limited route against one limit per client address', async () => {
    const token = JSON.stringify({ jwt: 'a.b.c' });
    for (const path of ['/membership/users/%6Cogin', '/Membership/Users/LOGIN/', '/membership/users/login?next=1']) {
      expect((await post(path, '203.0.113.10', token)).status).toBe(200);
    }
    const limited = await post('/membership/users/%6c%6F%67%69%6E/', '203.0.113.10', token);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await limited.json()).errors[0]).toMatch(/^Too many requests/);
    // Forwarded as they were spelled; the fourth never reached the service.
    expect(seen.map((s) => s.url)).toEqual(['/membership/users/%6Cogin', '/Membership/Users/LOGIN/', '/membership/users/login?next=1']);
    // Another client, and another limited route for the same client, have counters of their own.
    expect((await post('/membership/users/login', '203.0.113.11', token)).status).toBe(200);
    expect((await post('/membership/oauth/token', '203.0.113.10', 'grant_type=x', 'application/x-www-form-urlencoded')).status).toBe(200);
  });

  it('limits mail to one email across client addresses and routes, however the address is written', async () => {
    const forgot = (email: string) => JSON.stringify({ userEmail: email, appName: 'A', appUrl: 'https://a.example' });
    expect((await post('/membership/users/forgot', '198.51.100.1', forgot('ada@example.org'))).status).toBe(200);
    // A byte order mark, spaces and capitals: the same account to the service, so the same counter here.
    expect((await post('/membership/users/register', '198.51.100.2', `\uFEFF${JSON.stringify({ email: '  Ada@Example.ORG ', firstName: 'A' })}`)).status).toBe(200);
    const limited = await post('/membership/users/forgot', '198.51.100.3', forgot('ADA@example.org'));
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(120);
    expect(await limited.json()).toEqual({ errors: [expect.stringMatching(/^Too many requests/)] });
    // The same client, for someone else, is not limited; nor is signing in to the limited account.
    expect((await post('/membership/users/register', '198.51.100.3', JSON.stringify({ email: 'grace@example.org', firstName: 'G' }))).status).toBe(200);
    expect((await post('/membership/users/login', '198.51.100.3', JSON.stringify({ email: 'ada@example.org', password: 'right' }))).status).toBe(200);
    expect(seen).toHaveLength(4);
  });

  it('counts only failed sign-ins, and never locks out the right password from an address with no failures', async () => {
    const login = (password: string) => JSON.stringify({ email: 'lin@example.org', password });
    // Successful sign-ins, however many, count for nothing.
    for (let i = 0; i < 3; i++) expect((await post('/membership/users/login', '198.51.100.20', login('right'))).status).toBe(200);
    // An attacker's address fails twice (the limit here): its next try is refused without reaching the service.
    expect((await post('/membership/users/login', '198.51.100.21', login('wrong-password'))).status).toBe(401);
    expect((await post('/membership/users/verifyCredentials', '198.51.100.21', login('wrong-password'))).status).toBe(401);
    const before = seen.length;
    const refused = await post('/membership/users/login', '198.51.100.21', login('right'));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(seen.length).toBe(before);
    // A second address that has failed once is refused too, now that the account has reached the limit.
    expect((await post('/membership/users/login', '198.51.100.22', login('wrong-password'))).status).toBe(401);
    expect((await post('/membership/users/login', '198.51.100.22', login('right'))).status).toBe(429);
    // The owner, from an address with no failure, signs in at once.
    expect((await post('/membership/users/login', '198.51.100.23', login('right'))).status).toBe(200);
  });

  it('counts wrong emailed codes against the account as it counts wrong passwords', async () => {
    const code = (c: string) => JSON.stringify({ email: 'kim@example.org', code: c });
    expect((await post('/membership/users/verifyCode', '198.51.100.40', code('000000'))).status).toBe(400);
    expect((await post('/membership/users/verifyCode', '198.51.100.40', code('000000'))).status).toBe(400);
    const before = seen.length;
    expect((await post('/membership/users/verifyCode', '198.51.100.40', code('123456'))).status).toBe(429);
    expect(seen.length).toBe(before);
    // The public lookups the login screens make are limited per address too.
    for (let i = 0; i < 3; i++) expect((await post('/membership/users/checkEmail', '198.51.100.41', JSON.stringify({ email: `x${i}@example.org` }))).status).toBe(200);
    expect((await post('/membership/users/checkEmail', '198.51.100.41', JSON.stringify({ email: 'y@example.org' }))).status).toBe(429);
  });

  it('slows an address progressively as it keeps failing', async () => {
    expect([0, 1, 2, 3, 4, 5, 9].map(progressiveDelayMs)).toEqual([0, 0, 0, 250, 500, 1000, 4000]);
  });

  it('forwards the body it read as the same bytes, with its content type', async () => {
    const body = Buffer.from('{ "email" : "Bob@Example.org",\n  "password": "p\u00e4ss \u{1F600}" }  ');
    const sent = await post('/membership/users/login', '192.0.2.1', body.toString(), 'application/json; charset=utf-8');
    expect(sent.status).toBe(200);
    // Chunked, with a part ending inside a character: read whole, and sent on with its length.
    const chunked = await postInParts('/membership/users/login', '192.0.2.2', [body.subarray(0, 52), body.subarray(52)]);
    expect(chunked.status).toBe(200);
    expect(seen).toHaveLength(2);
    for (const got of seen) {
      expect(got.body.equals(body)).toBe(true);
      expect(got.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(got.headers['content-length']).toBe(String(body.length));
    }
  });

  it('forwards a body that is not JSON or names no email as it is', async () => {
    const bodies: Array<[string, string]> = [
      ['email=eve@example.org', 'application/x-www-form-urlencoded'],
      ['{"email": ', 'application/json'],
      ['{"email": 42, "password": "x"}', 'application/json'],
      ['{"authGuid": "abc"}', 'application/json'],
    ];
    for (const [i, [body, type]] of bodies.entries()) {
      expect((await post('/membership/users/login', `192.0.2.${10 + i}`, body, type)).status).toBe(200);
    }
    expect(seen.map((s) => [s.body.toString(), s.headers['content-type']])).toEqual(bodies);
  });

  it('refuses a body over BODY_LIMIT with 413, sent with a length or chunked', async () => {
    const big = JSON.stringify({ email: 'big@example.org', password: 'x'.repeat(5000) });
    const withLength = await post('/membership/users/login', '192.0.2.20', big);
    expect(withLength.status).toBe(413);
    const chunked = await postInParts('/membership/users/login', '192.0.2.21', [Buffer.from(big.slice(0, 3000)), Buffer.from(big.slice(3000))]);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toEqual({ errors: ['Body is too large'] });
    expect(seen).toHaveLength(0);
  });

  // The gateway reads a body whole before it takes an upstream connection for it: the service sees the
  // request only once its last byte has arrived, and then as the same bytes.
  const readFirst = async (path: string, ip: string, base = url) => {
    const before = seen.length;
    let reachedEarly = false;
    const res = await postInParts(path, ip, [Buffer.from('{"email": "s'), Buffer.from('tream@example.org"}')], async () => {
      await new Promise((r) => setTimeout(r, 100));
      reachedEarly = seen.length > before;
    }, base);
    return !reachedEarly && res.status === 200 && seen.at(-1)?.body.toString() === '{"email": "stream@example.org"}';
  };

  it('reads every body before forwarding it, unchanged, limited routes or not', async () => {
    for (const path of ['/doing/tasks', '/membership/oauth/token', '/membership/users/login/extra']) expect(await readFirst(path, '192.0.2.30')).toBe(true);
  });

  it('answers a body that does not arrive in time with 408 and closes the connection, reaching no service', async () => {
    const quick = await startGateway({ BODY_TIMEOUT_MS: '300' });
    try {
      const before = seen.length;
      const res = await new Promise<{ status: number; connection?: string; body: string }>((resolve, reject) => {
        const req = request(`${urlOf(quick.server)}/membership/churches/search`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '100000' } }, (r) => {
          let body = '';
          r.on('data', (c: Buffer) => (body += c));
          r.on('end', () => resolve({ status: r.statusCode!, connection: r.headers.connection, body }));
        });
        req.on('error', reject);
        req.write('{');
      });
      expect(res.status).toBe(408);
      expect(res.connection).toBe('close');
      expect(JSON.parse(res.body)).toEqual({ errors: [expect.any(String)] });
      expect(seen.length).toBe(before);
    } finally {
      await quick.close();
    }
  });

  it('answers a chunked body over the limit with 413 and closes the connection', async () => {
    const small = await startGateway({ BODY_LIMIT: '1000' });
    try {
      const res = await new Promise<{ status: number; connection?: string }>((resolve, reject) => {
        const req = request(`${urlOf(small.server)}/doing/tasks`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (r) => {
          r.resume();
          r.on('end', () => resolve({ status: r.statusCode!, connection: r.headers.connection }));
        });
        req.on('error', () => undefined);
        req.on('close', () => undefined);
        req.write(Buffer.alloc(600, 'a'));
        req.write(Buffer.alloc(600, 'a'), () => req.end());
        void reject;
      });
      expect(res.status).toBe(413);
      expect(res.connection).toBe('close');
    } finally {
      await small.close();
    }
  });

  it('answers headers over the size limit with 431 in the error shape and closes the connection, reaching no service', async () => {
    const gw = await startGateway({});
    try {
      const { port } = gw.server.address() as AddressInfo;
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(`GET /membership/churches HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
        });
        let answer = '';
        socket.on('data', (c: Buffer) => (answer += c.toString()));
        // the gateway ends the connection itself: 'end' arrives without the client closing
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
      const [head, body] = raw.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 431 /);
      expect(head).toMatch(/\r\nConnection: close/i);
      expect(JSON.parse(body!)).toEqual({ errors: ['Request headers are too large'] });
      expect(seen).toHaveLength(0);
    } finally {
      await gw.close();
    }
  });

  it('answers a malformed escape in the path with 400 in the error shape', async () => {
    for (const path of ['/membership/users/%zzlogin', '/membership/users/%C0login']) {
      const res = await post(path, '192.0.2.40', JSON.stringify({ email: 'x@example.org' }));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ errors: [{ msg: expect.any(String) }] });
    }
    expect(seen).toHaveLength(0);
  });

  it('keeps internal routes out of reach however they are spelled', async () => {
    for (const path of ['/membership/%69nternal/people/basic', '/Membership/INTERNAL/people/basic/']) {
      expect((await post(path, '192.0.2.50', '{}')).status).toBe(404);
    }
    // the spec's Internal route outside /internal/ is refused as unauthorised, however spelled
    for (const path of ['/membership/people/apiEmails', '/Membership/People/APIEMAILS/']) {
      expect((await post(path, '192.0.2.50', '{}')).status).toBe(401);
    }
    expect(seen).toHaveLength(0);
  });

  it('lifts both limits with RATE_LIMIT_ENABLED=false', async () => {
    const open = await startGateway({ RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_MAX: '1', RATE_LIMIT_EMAIL_MAX: '1' });
    try {
      const body = JSON.stringify({ email: 'ada@example.org', password: 'x' });
      for (let i = 0; i < 3; i++) expect((await post('/membership/users/login', '192.0.2.60', body, 'application/json', urlOf(open.server))).status).toBe(200);
      expect(seen.map((s) => s.body.toString())).toEqual(Array(3).fill(body));
      expect(await readFirst('/membership/users/login', '192.0.2.60', urlOf(open.server))).toBe(true);
    } finally {
      await open.close();
    }
  });
});
