import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { MODULES } from '@church/common';
import { api, signUp } from './lib/client';
import { databaseUrl } from './lib/databases';
import { startDeployment } from './lib/deployment';

/*
 * Sign-in under a burst (issue 31): the fleet as deployed on the local PostgreSQL (fresh `burst_*` databases), 20
 * accounts, then
 *   - bursts: 200 sign-ins sent at once (10 per account), three times — how many succeed, how many are refused
 *     (503), and how long until the last one is answered;
 *   - a storm: 20 clients signing in back to back for 10 s — successes, refusals and the slowest answer.
 * The password-hash queue is bounded by the wait it implies (PASSWORD_HASH_MAX_WAIT_MS, 5 s): a burst that this
 * machine hashes within that bound is served whole.
 *
 *   npx tsx bench/login-burst.ts [--database-url=postgres://postgres@127.0.0.1:5432/postgres]
 *
 * Writes bench/results/login-burst-postgres.md.
 */

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const PASSWORD = 'burst-password-1';

async function main() {
  const adminUrl = process.argv.find((a) => a.startsWith('--database-url='))?.split('=')[1] ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'church-burst-'));
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  const databaseUrls: Record<string, string> = {};
  for (const m of MODULES) {
    await admin.query(`drop database if exists "burst_${m}" with (force)`);
    await admin.query(`create database "burst_${m}"`);
    databaseUrls[m] = databaseUrl(adminUrl, `burst_${m}`);
  }
  await admin.end();
  const secrets = { JWT_SECRET: randomBytes(32).toString('hex'), INTERNAL_SECRET: randomBytes(32).toString('hex'), ENCRYPTION_KEY: randomBytes(32).toString('hex') };
  for (const m of MODULES) {
    const res = spawnSync(process.execPath, ['--import', 'tsx', `services/${m}/src/migrate.ts`], { cwd: path.resolve(__dirname, '..'), env: { ...process.env, ...secrets, DATABASE_URL: databaseUrls[m], LOG_LEVEL: 'warn' }, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`${m} migrations failed: ${res.stderr}`);
  }
  const deployment = await startDeployment({ databaseUrls, secrets, dataDir, log });
  const lines: string[] = [];
  try {
    const base = deployment.url;
    const emails = Array.from({ length: 20 }, (_, i) => `burst-${i}-${randomUUID().slice(0, 6)}@bench.test`);
    for (const email of emails) await signUp(base, dataDir, email, PASSWORD);
    log('20 accounts ready');
    const signIn = (n: number) => api(base, 'POST', '/membership/users/login', { email: emails[n % emails.length], password: PASSWORD });
    lines.push('# Sign-in under a burst (`npx tsx bench/login-burst.ts`)', '', `${new Date().toISOString()}, the fleet as deployed on PostgreSQL (one membership process).`, '');
    lines.push('| run | sent | 200 | 503 | other | last answer after (ms) | slowest (ms) |', '| --- | --- | --- | --- | --- | --- | --- |');
    for (let run = 1; run <= 3; run++) {
      const started = performance.now();
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => signIn(i)));
      const total = performance.now() - started;
      const of = (s: number) => answers.filter((a) => a.status === s).length;
      lines.push(`| burst ${run} | 200 | ${of(200)} | ${of(503)} | ${200 - of(200) - of(503)} | ${Math.round(total)} | ${Math.round(Math.max(...answers.map((a) => a.ms)))} |`);
      log(lines[lines.length - 1]!);
      await new Promise((r) => setTimeout(r, 3000));
    }
    const until = Date.now() + 10_000;
    const storm: Array<{ status: number; ms: number }> = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, c) => {
        for (let n = c; Date.now() < until; n += 20) storm.push(await signIn(n));
      }),
    );
    const of = (s: number) => storm.filter((a) => a.status === s).length;
    lines.push(`| storm (20 clients, 10 s) | ${storm.length} | ${of(200)} | ${of(503)} | ${storm.length - of(200) - of(503)} | — | ${Math.round(Math.max(...storm.map((a) => a.ms)))} |`);
    log(lines[lines.length - 1]!);
  } finally {
    await deployment.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const file = path.resolve(__dirname, 'results', 'login-burst-postgres.md');
  writeFileSync(file, `${lines.join('\n')}\n`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
