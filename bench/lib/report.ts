import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SeedReport } from '../seed';
import type { Target } from '../scenarios';
import type { ExplainResult } from './ipc';
import type { LoadResult } from './load';
import type { BenchOptions } from './options';

export interface Outcome {
  name: string;
  module: string;
  what: string;
  status: 'ok' | 'missing' | 'skipped' | 'failed';
  note?: string;
  result?: LoadResult;
  ratioHello?: number;
  ratioPg?: number;
  target?: Target;
  pass?: boolean;
  /**
   * ratio targets: the fastify+pg ceiling measured just before and just after this scenario; its `× pg` uses
   * their mean, so that a machine drifting during the scenario moves the reference with it
   */
  adjacentPg?: { before: LoadResult; after: LoadResult; rps: number };
  /** login only: latency of a low-rate authenticated request alone and during the storm */
  loopProbe?: { path: string; idle?: LoadResult; storm?: LoadResult };
}

export interface BenchReport {
  startedAt: string;
  finishedAt?: string;
  target: BenchOptions['target'];
  options: Omit<BenchOptions, 'databaseUrl' | 'redisUrl'>;
  machine: { cpus: number; model: string; node: string; platform: string; memoryGb: number };
  /** the machine's load average (1, 5 and 15 minutes) when the run started and ended: other work on the cores shows here */
  load?: { start: number[]; end?: number[] };
  redis: boolean;
  /** where the scenarios' token came from */
  token: 'login' | 'signed (login route missing)';
  seed?: SeedReport;
  ceilings: { hello?: LoadResult; pg?: LoadResult; argon2?: LoadResult; notes: string[] };
  scenarios: Outcome[];
  explain: ExplainResult[];
  notes: string[];
}

/** Ratios to the ceilings and the verdict against the scenario's target. */
export function evaluate(outcome: Outcome, ceilings: BenchReport['ceilings']): Outcome {
  const r = outcome.result;
  if (!r) return outcome;
  if (ceilings.hello?.rps) outcome.ratioHello = Math.round((r.rps / ceilings.hello.rps) * 1000) / 1000;
  const pg = outcome.adjacentPg?.rps ?? ceilings.pg?.rps;
  if (pg) outcome.ratioPg = Math.round((r.rps / pg) * 1000) / 1000;
  const t = outcome.target;
  // no answer at all within the run is a failure, whatever the (empty) percentiles say
  const clean = r.non2xx === 0 && r.errors === 0 && r.total > 0;
  if (t?.kind === 'pgRatio' && outcome.ratioPg !== undefined) outcome.pass = clean && outcome.ratioPg >= t.value;
  if (t?.kind === 'rps') outcome.pass = clean && r.rps >= t.value && (t.p99Max === undefined || r.p99 <= t.p99Max);
  if (t?.kind === 'p99') outcome.pass = clean && (t.strict ? r.p99 < t.value : r.p99 <= t.value);
  return outcome;
}

const fixed = (v: number | undefined, digits = 1) => (v === undefined ? '' : v.toFixed(digits));
const bracket = (pg: NonNullable<Outcome['adjacentPg']>) =>
  `the mean of the fastify+pg ceilings measured just before (${fixed(pg.before.rps, 0)} req/s) and just after (${fixed(pg.after.rps, 0)} req/s) it: ${fixed(pg.rps, 0)} req/s`;
const verdict = (o: Outcome) => (o.pass === undefined ? '' : o.pass ? 'PASS' : 'FAIL');

function rows(report: BenchReport): string[][] {
  const out: string[][] = [];
  const c = report.ceilings;
  if (c.hello) out.push(['ceiling: fastify hello', fixed(c.hello.rps, 0), fixed(c.hello.p50, 2), fixed(c.hello.p99, 2), String(c.hello.non2xx), '1', '', '', '']);
  if (c.pg) out.push(['ceiling: fastify+pg', fixed(c.pg.rps, 0), fixed(c.pg.p50, 2), fixed(c.pg.p99, 2), String(c.pg.non2xx), fixed(c.hello ? c.pg.rps / c.hello.rps : undefined, 3), '1', '', '']);
  if (c.argon2) out.push(['ceiling: argon2id verify', fixed(c.argon2.rps, 0), fixed(c.argon2.p50, 2), fixed(c.argon2.p99, 2), String(c.argon2.non2xx), '', '', '', '']);
  for (const o of report.scenarios) {
    const r = o.result;
    if (!r) {
      out.push([o.name, o.status, '', '', '', '', '', o.target?.text ?? '', o.note ?? '']);
      continue;
    }
    const none = r.total === 0;
    out.push([o.name, fixed(r.rps, 0), none ? '—' : fixed(r.p50, 2), none ? '—' : fixed(r.p99, 2), String(r.non2xx + r.errors), fixed(o.ratioHello, 3), fixed(o.ratioPg, 3), o.target?.text ?? '', verdict(o)]);
  }
  return out;
}

const HEADER = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', '× hello', '× pg', 'target', 'verdict'];

export function textTable(report: BenchReport): string {
  const all = [HEADER, ...rows(report)];
  const widths = HEADER.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((cell, i) => (i === 0 || i >= 7 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd();
  const lines = [line(HEADER), widths.map((w) => '-'.repeat(w)).join('  '), ...rows(report).map(line)];
  for (const o of report.scenarios) {
    if (o.loopProbe && report.ceilings.argon2?.rps) lines.push(`  ${o.name}: ${fixed(o.result?.rps, 0)} req/s = ${fixed((o.result?.rps ?? 0) / report.ceilings.argon2.rps, 2)}× the bare argon2id verify ceiling`);
    if (o.adjacentPg) lines.push(`  ${o.name}: × pg against ${bracket(o.adjacentPg)}`);
    if (o.loopProbe) lines.push(`  ${o.name}: GET ${o.loopProbe.path} at low rate, p99 ${fixed(o.loopProbe.idle?.p99, 2)} ms alone, ${fixed(o.loopProbe.storm?.p99, 2)} ms during the storm (max ${fixed(o.loopProbe.storm?.max, 0)} ms)`);
    if (o.result && o.result.non2xx + o.result.errors > 0) lines.push(`  ${o.name}: status codes ${JSON.stringify(o.result.statusCodes)}, errors ${o.result.errors}; ${o.result.samples.join(' | ').slice(0, 600)}`);
    if (o.note && o.result) lines.push(`  ${o.name}: ${o.note}`);
  }
  return lines.join('\n');
}

const loadText = (load: number[]) => load.map((l) => l.toFixed(2)).join(' / ');

export function markdown(report: BenchReport): string {
  const md: string[] = [];
  md.push(`# Benchmark: ${report.target}`, '');
  md.push(`${report.startedAt}; ${report.machine.cpus} × ${report.machine.model}, ${report.machine.memoryGb} GB, Node ${report.machine.node}; ` +
    `${report.options.connections} connections, ${report.options.duration} s per scenario (+${report.options.warmup} s warm-up); ` +
    `Redis ${report.redis ? 'on' : 'off'}; token from ${report.token}; ` +
    `${report.options.fleet === 'processes' ? 'the gateway and each service in its own process (as deployed)' : 'the whole fleet in one process'}` +
    (report.load ? `; load average ${loadText(report.load.start)} at the start${report.load.end ? `, ${loadText(report.load.end)} at the end` : ''}` : '') + '.', '');
  md.push(`| ${HEADER.join(' | ')} |`, `| ${HEADER.map((_, i) => (i === 0 || i >= 7 ? '---' : '---:')).join(' | ')} |`);
  for (const r of rows(report)) md.push(`| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`);
  md.push('');
  const notes = [...report.ceilings.notes, ...report.notes, ...(report.seed?.notes ?? [])];
  for (const o of report.scenarios) {
    if (o.loopProbe && report.ceilings.argon2?.rps) md.push(`- ${o.name}: ${fixed(o.result?.rps, 0)} req/s = ${fixed((o.result?.rps ?? 0) / report.ceilings.argon2.rps, 2)}× the bare argon2id verify ceiling (${fixed(report.ceilings.argon2.rps, 0)} verifications/s in its own process).`);
    if (o.adjacentPg) md.push(`- ${o.name}: \`× pg\` is against ${bracket(o.adjacentPg)}.`);
    if (o.loopProbe) md.push(`- ${o.name}: a low-rate \`GET ${o.loopProbe.path}\` had p99 ${fixed(o.loopProbe.idle?.p99, 2)} ms alone and ${fixed(o.loopProbe.storm?.p99, 2)} ms during the storm (max ${fixed(o.loopProbe.storm?.max, 0)} ms).`);
    if (o.result && o.result.non2xx + o.result.errors > 0) md.push(`- ${o.name}: status codes \`${JSON.stringify(o.result.statusCodes)}\`, ${o.result.errors} connection errors; first answers: \`${o.result.samples.join(' | ').slice(0, 400).replace(/`/g, "'")}\``);
    if (o.note) md.push(`- ${o.name}: ${o.note}`);
  }
  for (const note of notes) md.push(`- ${note}`);
  if (report.seed) {
    const counts = Object.entries(report.seed.counts).map(([t, n]) => `${t} ${n.toLocaleString('en-US')}`).join(', ');
    md.push('', `Seed: ${report.seed.seeded ? `${(report.seed.ms / 1000).toFixed(1)} s` : 'reused'}; ${counts}.`);
  }
  for (const e of report.explain) {
    md.push('', `## EXPLAIN: ${e.name} (HTTP ${e.status})`, '');
    if (e.error) md.push(`request failed: ${e.error}`);
    if (!e.queries.length && !e.error) md.push('no SELECT captured');
    for (const q of e.queries) md.push('```sql', q.sql, `-- params: ${JSON.stringify(q.params).slice(0, 300)}`, '```', '```', q.plan, '```');
  }
  return `${md.join('\n')}\n`;
}

/** Writes `results/<timestamp>-<target>.json` and `results/latest-<target>.md`; answers their paths. */
export function writeResults(report: BenchReport, dir: string): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, '-');
  const json = path.join(dir, `${stamp}-${report.target}.json`);
  const md = path.join(dir, `latest-${report.target}.md`);
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(md, markdown(report));
  return { json, md };
}
