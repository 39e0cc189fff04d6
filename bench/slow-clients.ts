import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startFleet } from '../fleet/src/fleet';

/**
 * The slow-client attack of issue 14, bounded: `--sockets` connections (default 130) each announce a 100,000-byte
 * body for `POST /membership/churches/search` and send one byte every 5 s, unauthenticated. Meanwhile a client logs
 * in (`POST /membership/users/login {jwt}`, no password hashing, so the figure is the stall and nothing else)
 * every 100 ms. Reports login latency before and during the attack, and how the gateway ended the slow sockets
 * (408 and closed after BODY_TIMEOUT_MS). Runs the embedded fleet in this process with the gateway's defaults.
 *
 *   npx tsx bench/slow-clients.ts [--sockets=130] [--seconds=20]
 * Writes `bench/results/slow-clients.md`.
 */
const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);

async function main() {
  const sockets = arg('sockets', 130);
  const seconds = arg('seconds', 20);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'church-slow-'));
  const fleet = await startFleet({ port: 0, dataDir, logLevel: 'silent', env: { RATE_LIMIT_ENABLED: 'false' } });
  const url = fleet.url.replace('localhost', '127.0.0.1');
  const port = Number(new URL(url).port);
  try {
    const token = await firstLogin(url, dataDir);
    const login = async () => {
      const started = performance.now();
      const res = await fetch(`${url}/membership/users/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jwt: token }) });
      await res.arrayBuffer();
      return { ms: performance.now() - started, ok: res.status === 200 };
    };
    const probe = async (forMs: number) => {
      const out: Array<{ ms: number; ok: boolean }> = [];
      const until = Date.now() + forMs;
      while (Date.now() < until) {
        out.push(await login());
        await new Promise((r) => setTimeout(r, 100));
      }
      return out;
    };

    const before = await probe(5000);
    const endings = { status408: 0, otherStatus: 0, closedWithoutAnswer: 0, stillOpen: 0 };
    const attack = Array.from({ length: sockets }, () => slowClient(port, seconds * 1000));
    const during = await probe(seconds * 1000);
    for (const ending of await Promise.all(attack)) endings[ending] += 1;

    const stats = (xs: Array<{ ms: number; ok: boolean }>) => {
      const ms = xs.map((x) => x.ms).sort((a, b) => a - b);
      const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(1);
      return `${xs.length} logins, ${xs.filter((x) => !x.ok).length} failed; p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${ms.at(-1)!.toFixed(1)} ms`;
    };
    const lines = [
      '# Slow clients against the gateway (issue 14)',
      '',
      `${new Date().toISOString()}; ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}; the embedded fleet in one process, gateway defaults (BODY_TIMEOUT_MS, body read before an upstream connection is taken). \`npx tsx bench/slow-clients.ts --sockets=${sockets} --seconds=${seconds}\`.`,
      '',
      `Attack: ${sockets} unauthenticated connections, each \`POST /membership/churches/search\` with \`Content-Length: 100000\` and one byte every 5 s, for up to ${seconds} s.`,
      '',
      '| | concurrent `POST /membership/users/login {jwt}`, every 100 ms |',
      '| --- | --- |',
      `| before the attack (5 s) | ${stats(before)} |`,
      `| during the attack (${seconds} s) | ${stats(during)} |`,
      '',
      `How the slow connections ended: ${endings.status408} answered 408 and closed by the gateway, ${endings.otherStatus} another status, ${endings.closedWithoutAnswer} closed without an answer, ${endings.stillOpen} still open when the run ended.`,
      '',
    ];
    const out = lines.join('\n');
    process.stdout.write(`${out}\n`);
    writeFileSync(path.join(__dirname, 'results', 'slow-clients.md'), out);
  } finally {
    await fleet.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One slow body; resolves with how the connection ended (at most `maxMs`, then it is cut). */
function slowClient(port: number, maxMs: number): Promise<'status408' | 'otherStatus' | 'closedWithoutAnswer' | 'stillOpen'> {
  return new Promise((resolve) => {
    let answer = '';
    let settled = false;
    const done = (how: 'status408' | 'otherStatus' | 'closedWithoutAnswer' | 'stillOpen') => {
      if (settled) return;
      settled = true;
      clearInterval(drip);
      clearTimeout(cut);
      socket.destroy();
      resolve(how);
    };
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write('POST /membership/churches/search HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
    });
    const drip = setInterval(() => socket.writable && socket.write(' '), 5000);
    const cut = setTimeout(() => done('stillOpen'), maxMs);
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => done(!answer ? 'closedWithoutAnswer' : /^HTTP\/1\.1 408/.test(answer) ? 'status408' : 'otherStatus'));
  });
}

/** Registers the first user, reads the welcome email's login link from the dev mailbox, logs in: a token. */
async function firstLogin(url: string, dataDir: string): Promise<string> {
  const post = (p: string, body: unknown) => fetch(`${url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const reg = await post('/membership/users/register', { email: 'slow@example.org', firstName: 'Slow', lastName: 'Bench', appName: 'Church', appUrl: 'https://app.example.org' });
  if (reg.status !== 200) throw new Error(`register answered ${reg.status}`);
  let mail: string[] = [];
  for (let i = 0; i < 100 && !mail.length; i++) {
    await new Promise((r) => setTimeout(r, 100));
    mail = readdirSync(path.join(dataDir, 'mail')).filter((f) => f.endsWith('.json'));
  }
  const welcome = JSON.parse(readFileSync(path.join(dataDir, 'mail', mail[0]!), 'utf8')) as { html: string };
  const authGuid = /auth=([\w-]+)/.exec(welcome.html)?.[1];
  const res = await post('/membership/users/login', { authGuid });
  const body = (await res.json()) as { user?: { jwt?: string }; token?: string };
  const token = body.token ?? body.user?.jwt;
  if (!token) throw new Error(`login answered ${res.status} without a token`);
  return token;
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
