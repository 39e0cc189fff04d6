import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild } from './lib/child';
import { prepareCeilingDatabase } from './lib/databases';
import { freePort } from './lib/deployment';
import { fixtures, uid } from './lib/fixtures';
import { runLoad, type LoadResult } from './lib/load';

/**
 * The bound a large answer puts on the `donations-person` ratio (issue 20), whatever the service does to build it:
 * a bare Fastify answering the same constant JSON at every request (a person's ~55 gifts with their funds, the size
 * the bench church's answers have), asked directly and through the real gateway, beside the fastify+pg ceiling the
 * target is a ratio to, in alternating rounds. A service that built the answer in no time and read its database
 * for free would still be held to the "through the gateway" figure.
 *
 *   npx tsx bench/gateway-bound.ts [--rounds=3] [--duration=10]
 *
 * Writes `bench/results/gateway-bound.md`. Needs PostgreSQL (the ceiling's tiny database); no seed.
 */
const ROOT = path.resolve(__dirname, '..');
const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const rounds = arg('rounds', 3);
const duration = arg('duration', 10);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A person's gifts as `GET /giving/donations?personId=` answers them: weekly, one fund each, eight funds. */
function answer(): string {
  const personId = fixtures.personId(0);
  return JSON.stringify(
    Array.from({ length: 55 }, (_, i) => ({
      id: uid(`bound:donation:${i}`),
      batchId: uid(`bound:batch:${i}`),
      personId,
      donationDate: new Date(Date.UTC(2025, 0, 5 + 7 * i)).toISOString(),
      amount: 25 + i,
      currency: 'USD',
      method: 'card',
      methodDetails: 'visa 4242',
      notes: null,
      status: 'complete',
      transactionId: `pi_${uid(`bound:charge:${i}`).replace(/-/g, '')}`,
      provider: 'stripe',
      fee: 1.03,
      refundedAmount: 0,
      subscriptionId: null,
      funds: [{ id: uid(`bound:allocation:${i}`), fundId: uid(`bound:fund:${i % 8}`), fundName: `Fund ${i % 8}`, amount: 25 + i }],
    })),
  );
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-bound-'));
  const bodyFile = path.join(dir, 'answer.json');
  const body = answer();
  writeFileSync(bodyFile, body);
  const churchId = fixtures.churchId;
  const pgUrl = await prepareCeilingDatabase(adminUrl, [churchId]);
  const pg = await startChild<{ type: 'ready'; url: string }>('ceiling-process.ts', { BENCH_CEILING: 'pg', BENCH_CEILING_DB: pgUrl, BENCH_CEILING_CHURCH: churchId }, { prefix: '[pg]', timeoutMs: 60_000 });
  const constant = await startChild<{ type: 'ready'; url: string }>('ceiling-process.ts', { BENCH_CEILING: 'body', BENCH_CEILING_BODY: bodyFile }, { prefix: '[body]', timeoutMs: 60_000 });
  const port = await freePort();
  const gateway = spawn(process.execPath, ['--import', 'tsx', 'gateway/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_ENABLED: 'false', GIVING_URL: constant.ready.url },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const gatewayUrl = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      if (await fetch(`${gatewayUrl}/giving/donations`).then((r) => r.ok, () => false)) break;
      if (i > 100) throw new Error('the gateway did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    const load = { connections: 20, duration, warmup: 3 };
    const runs: Array<{ pg: LoadResult; direct: LoadResult; gateway: LoadResult }> = [];
    for (let r = 0; r < rounds; r++) {
      const round = {
        pg: await runLoad({ method: 'GET', path: '/ceiling' }, { ...load, url: pg.ready.url }),
        direct: await runLoad({ method: 'GET', path: '/giving/donations' }, { ...load, url: constant.ready.url }),
        gateway: await runLoad({ method: 'GET', path: `/giving/donations?personId=${fixtures.personId(0)}` }, { ...load, url: gatewayUrl }),
      };
      runs.push(round);
      process.stdout.write(`round ${r + 1}: pg ${round.pg.rps} req/s, constant answer ${round.direct.rps} direct (${ratio(round.direct, round.pg)}× pg), ${round.gateway.rps} through the gateway (${ratio(round.gateway, round.pg)}× pg)\n`);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const md = [
      '# The bound of a large answer through the gateway (issue 20, `donations-person`)',
      '',
      `${new Date().toISOString()}; ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}; \`npx tsx bench/gateway-bound.ts --rounds=${rounds} --duration=${duration}\` (20 connections, ${duration} s + 3 s warm-up each, in alternating rounds).`,
      '',
      `A bare Fastify answers the same ${body.length.toLocaleString('en-US')}-byte JSON (55 gifts with their funds, the shape and size of a bench person's \`GET /giving/donations?personId=\`) at every request: asked directly, and through the real gateway (\`gateway/src/main.ts\`, its \`GIVING_URL\` pointing at it). No database, no auth, nothing built per request: whatever giving does, the \`donations-person\` scenario cannot beat the "through the gateway" column. The target is 0.5× the fastify+pg ceiling.`,
      '',
      '| round | fastify+pg req/s | constant answer, direct: req/s, × pg | constant answer through the gateway: req/s, p99 ms, × pg |',
      '| --- | ---: | ---: | ---: |',
      ...runs.map((r, i) => `| ${i + 1} | ${r.pg.rps} | ${r.direct.rps}, ${ratio(r.direct, r.pg)} | ${r.gateway.rps}, ${r.gateway.p99}, ${ratio(r.gateway, r.pg)} |`),
      `| median | ${median(runs.map((r) => r.pg.rps))} | ${median(runs.map((r) => r.direct.rps))}, ${median(runs.map((r) => +ratio(r.direct, r.pg)))} | ${median(runs.map((r) => r.gateway.rps))}, ${median(runs.map((r) => r.gateway.p99))}, ${median(runs.map((r) => +ratio(r.gateway, r.pg)))} |`,
      '',
    ].join('\n');
    writeFileSync(path.join(__dirname, 'results', 'gateway-bound.md'), md);
    process.stdout.write(`\n${md}\nwritten: bench/results/gateway-bound.md\n`);
  } finally {
    gateway.kill('SIGTERM');
    await Promise.all([pg.stop(), constant.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

const ratio = (a: LoadResult, b: LoadResult) => (a.rps / b.rps).toFixed(3);

main().catch((err) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
