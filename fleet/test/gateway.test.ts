import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFleet, type Fleet } from '../src/fleet';

// The embedded fleet through real HTTP: seven services on PGlite behind the gateway, in this process.
describe('gateway over the embedded fleet', () => {
  let fleet: Fleet;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'fleet-test-'));
    fleet = await startFleet({ port: 0, dataDir, logLevel: 'silent', env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' } });
  }, 300_000);
  afterAll(async () => {
    await fleet?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports every service healthy', async () => {
    const res = await fetch(`${fleet.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ok',
      services: { membership: 'ok', attendance: 'ok', giving: 'ok', messaging: 'ok', content: 'ok', doing: 'ok', reporting: 'ok' },
    });
  });

  it('answers its own liveness without asking the modules', async () => {
    const res = await fetch(`${fleet.url}/live`);
    expect(await res.json()).toEqual({ status: 'ok', service: 'gateway' });
  });

  it('forwards to the module and keeps Fastify’s not-found wording', async () => {
    const res = await fetch(`${fleet.url}/attendance/no-such-route`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ errors: ['Route GET:/attendance/no-such-route not found'], message: 'Route GET:/attendance/no-such-route not found' });
  });

  it('passes a request id through to the service and back', async () => {
    const res = await fetch(`${fleet.url}/membership/docs/json`, { headers: { 'x-request-id': 'trace-me-123' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('trace-me-123');
    const doc = await res.json();
    expect(doc.openapi).toMatch(/^3\./);
  });

  it('never exposes internal routes', async () => {
    const res = await fetch(`${fleet.url}/membership/internal/people/basic`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(404);
  });

  it('refuses bodies over the limit with 413', async () => {
    const res = await fetch(`${fleet.url}/membership/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(11 * 1024 * 1024) },
      body: 'x'.repeat(11 * 1024 * 1024),
    }).catch((err: Error) => ({ status: 413, err }));
    expect(res.status).toBe(413);
  });

  it('answers CORS preflights', async () => {
    const res = await fetch(`${fleet.url}/membership/people`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.org', 'access-control-request-method': 'GET' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.org');
  });

  it('serves the docs UI over every module’s OpenAPI document', async () => {
    const res = await fetch(`${fleet.url}/docs/static/index.html`);
    expect(res.status).toBe(200);
    const init = await (await fetch(`${fleet.url}/docs/static/swagger-initializer.js`)).text();
    for (const m of ['membership', 'attendance', 'giving', 'messaging', 'content', 'doing', 'reporting']) expect(init).toContain(`/${m}/docs/json`);
  });

  it('rate-limits the public login route per client with 429 and Retry-After', async () => {
    // A client naming itself differently in X-Forwarded-For each time is still one client (TRUST_PROXY is off).
    const login = (i: number) =>
      fetch(`${fleet.url}/Membership/Users/Login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${i}` },
        body: JSON.stringify({ email: 'nobody@example.org', password: 'wrong-password' }),
      });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await login(i);
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 3).every((s) => s !== 429)).toBe(true);
    expect(statuses[3]).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await last!.json()).errors[0]).toMatch(/Too many requests/);
    // Other routes are not limited.
    for (let i = 0; i < 5; i++) expect((await fetch(`${fleet.url}/membership/docs/json`)).status).toBe(200);
  });
});
