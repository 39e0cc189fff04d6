import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { fixtures, SHAPE, uid } from './lib/fixtures';
import { CALLS_FILE, loadAppCalls, operationsOf, resolveCall, type Operation, type ResolvedCall, type TokenKind } from './lib/app-calls';
import type { ExplainRequest, ExplainResult } from './lib/ipc';
import { headersFor, runLoad, type LoadResult } from './lib/load';
import { EXTRA_SHAPE } from './seed/extras';

/**
 * `pnpm bench --app-reads`: every GET the real apps make (`shared/clients/frontend-calls.json`), once each against
 * the seeded big church through the gateway, with the token the app would hold (staff, a plain member, or none
 * for a public route): status, p50, p99 and req/s of a short run at 10 connections, slowest first, the non-2xx
 * answers as findings, the calls the seed cannot address, and the query plans of the ten slowest.
 */

export interface AppReadOutcome {
  label: string;
  module: string;
  template?: string;
  path?: string;
  token: TokenKind;
  sites: string[];
  /** status of the first request (the probe) */
  status?: number;
  /** body of a non-2xx probe answer (the finding) */
  body?: string;
  /** the member's token was refused: the staff token was measured instead */
  memberRefused?: number;
  result?: LoadResult;
  /** the first answer took this long (ms); over a second, the call was loaded from one connection only */
  probeMs?: number;
  unresolved?: string;
  missing?: boolean;
  /** processes of the deployment that had exited when this call was done (a crash it or an earlier call caused) */
  down?: string[];
}

export interface AppReadsContext {
  url: string;
  staffToken: string;
  databaseUrls?: Record<string, string>;
  connections: number;
  duration: number;
  warmup: number;
  modules?: string[];
  quiet: () => Promise<void>;
  /** names of the deployment's processes that are no longer running */
  exited?: () => string[];
  explain: (requests: ExplainRequest[]) => Promise<ExplainResult[]>;
  log: (line: string) => void;
}

async function get(url: string, token?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { headers: headersFor({ token }) });
  return { status: res.status, text: await res.text() };
}

/** A real login of the seeded plain member (seed/extras.ts). */
async function memberToken(url: string): Promise<string> {
  const res = await fetch(`${url}/membership/users/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'member@bench.test', password: SHAPE.password }),
  });
  const body = (await res.json()) as { token?: string; churches?: Array<{ jwt?: string }> };
  const token = body.token ?? body.churches?.[0]?.jwt;
  if (!res.ok || !token) throw new Error(`login of member@bench.test answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return token;
}

/** Values the fixtures cannot derive: a donation of person 0 (whether a person gave in a week is random), event 0's start. */
async function lookups(databaseUrls?: Record<string, string>): Promise<{ donationId?: string; occurrenceStart?: string }> {
  const one = async (module: string, text: string, params: unknown[]) => {
    if (!databaseUrls?.[module]) return undefined;
    const client = new Client({ connectionString: databaseUrls[module] });
    await client.connect();
    try {
      return (await client.query(text, params)).rows[0] as Record<string, unknown> | undefined;
    } finally {
      await client.end();
    }
  };
  const donation = await one('giving', 'select id from donations where church_id = $1 and person_id = $2 order by donation_date desc limit 1', [fixtures.churchId, fixtures.personId(0)]);
  const event = await one('content', 'select start from events where church_id = $1 and id = $2', [fixtures.churchId, uid('event:0:0')]);
  return { donationId: donation?.id as string | undefined, occurrenceStart: event?.start instanceof Date ? event.start.toISOString() : undefined };
}

export async function runAppReads(ctx: AppReadsContext): Promise<{ outcomes: AppReadOutcome[]; explain: ExplainResult[]; calls: number }> {
  const calls = loadAppCalls().filter((c) => !ctx.modules || ctx.modules.includes(c.module));
  const modules = [...new Set(calls.map((c) => c.module))];
  const opsByModule: Record<string, Operation[]> = {};
  for (const m of modules) {
    const doc = await get(`${ctx.url}/${m}/docs/json`);
    if (doc.status !== 200) throw new Error(`GET /${m}/docs/json answered ${doc.status}`);
    opsByModule[m] = operationsOf(JSON.parse(doc.text));
  }
  const tokens: Record<TokenKind, string | undefined> = { staff: ctx.staffToken, member: await memberToken(ctx.url), none: undefined };
  const found = await lookups(ctx.databaseUrls);
  const resolved: ResolvedCall[] = calls.map((c) => resolveCall(c, opsByModule, found));
  const outcomes: AppReadOutcome[] = [];
  const load = { url: ctx.url, connections: ctx.connections, duration: ctx.duration, warmup: ctx.warmup };
  let n = 0;
  for (const r of resolved) {
    n++;
    const outcome: AppReadOutcome = { label: r.label, module: r.call.module, template: r.template, path: r.path, token: r.token, sites: r.call.sites };
    outcomes.push(outcome);
    if (!r.path) {
      outcome.unresolved = r.unresolved;
      continue;
    }
    await ctx.quiet();
    const started = performance.now();
    let probe = await get(ctx.url + r.path, tokens[r.token]);
    outcome.probeMs = Math.round(performance.now() - started);
    if (r.token === 'member' && (probe.status === 401 || probe.status === 403)) {
      outcome.memberRefused = probe.status;
      outcome.token = 'staff';
      probe = await get(ctx.url + r.path, tokens.staff);
    }
    outcome.status = probe.status;
    if (probe.status === 404 && /"msg":"Route [A-Z]+:/.test(probe.text)) outcome.missing = true;
    const down = ctx.exited?.() ?? [];
    if (down.length) outcome.down = down;
    if (probe.status < 200 || probe.status >= 300) {
      outcome.body = probe.text.slice(0, 300);
      ctx.log(`  [${n}/${resolved.length}] ${r.label} → ${probe.status}${down.length ? ` (exited: ${down.join(', ')})` : ''}`);
      continue;
    }
    // An answer that takes a second alone is not sent ten at a time: ten whole fund-allocation lists at once took
    // giving past its heap limit, and the calls after it measured a fleet without giving.
    const slow = outcome.probeMs > 1000;
    outcome.result = await runLoad({ method: 'GET', path: r.path, token: tokens[outcome.token] }, slow ? { ...load, connections: 1, warmup: 0 } : load);
    const after = ctx.exited?.() ?? [];
    if (after.length > down.length) {
      outcome.down = after;
      ctx.log(`  ${after.filter((p) => !down.includes(p)).join(', ')} exited during ${r.label}`);
    }
    ctx.log(`  [${n}/${resolved.length}] ${r.label} → ${probe.status}, p50 ${outcome.result.p50} ms, p99 ${outcome.result.p99} ms, ${Math.round(outcome.result.rps)} req/s`);
  }
  const slowest = outcomes.filter((o) => o.result).sort(bySlowest).slice(0, 10);
  ctx.log('explaining the queries of the ten slowest ...');
  // one at a time: a call that does not finish in time loses its own plans, not the others' (nor the report)
  const explain: ExplainResult[] = [];
  for (const o of slowest) {
    const request = { name: o.label, method: 'GET' as const, path: o.path!, token: tokens[o.token] };
    explain.push(...(await ctx.explain([request]).catch((err: unknown) => [{ name: o.label, status: 0, queries: [], error: `not explained: ${err instanceof Error ? err.message : String(err)}` }])));
  }
  return { outcomes, explain, calls: calls.length };
}

/** Slowest first: a run with no answer at all (each took longer than the run) before any measured one. */
const p50Of = (o: AppReadOutcome) => (o.result!.total === 0 ? Number.POSITIVE_INFINITY : o.result!.p50);
const bySlowest = (a: AppReadOutcome, b: AppReadOutcome) => p50Of(b) - p50Of(a) || (b.probeMs ?? 0) - (a.probeMs ?? 0);

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** Writes `results/app-reads-<target>.md`. */
export function writeAppReadsReport(
  dir: string,
  target: string,
  run: { outcomes: AppReadOutcome[]; explain: ExplainResult[]; calls: number },
  meta: { startedAt: string; finishedAt: string; machine: string; options: string; pg?: LoadResult; seedNotes: string[]; modules?: string[] },
): string {
  mkdirSync(dir, { recursive: true });
  const { outcomes } = run;
  const measured = outcomes.filter((o) => o.result).sort(bySlowest);
  const failed = outcomes.filter((o) => o.status !== undefined && (o.status < 200 || o.status >= 300));
  const unresolved = outcomes.filter((o) => o.unresolved);
  const refused = outcomes.filter((o) => o.memberRefused);
  const pg = meta.pg?.rps;
  const lines: string[] = [];
  lines.push(`# Every read the apps make (${target})`, '');
  lines.push(
    `${meta.startedAt} – ${meta.finishedAt}; ${meta.machine}; ${meta.options}. The ${run.calls} distinct GETs of \`shared/clients/frontend-calls.json\` ` +
      `(B1Admin, B1App and their packages), each sent to the seeded big church (10,000 people, ${EXTRA_SHAPE.workflows} workflows with ${EXTRA_SHAPE.cards} cards, ` +
      `${EXTRA_SHAPE.registrationEvents * EXTRA_SHAPE.registrationsPerEvent} registrations, ${EXTRA_SHAPE.bookedEvents} bookings, ${EXTRA_SHAPE.savedLists} saved lists, ` +
      `${EXTRA_SHAPE.auditLogs.toLocaleString('en-US')} audit lines, ${EXTRA_SHAPE.webhooks} webhooks with ${EXTRA_SHAPE.webhooks * EXTRA_SHAPE.deliveriesPerWebhook} deliveries, reminders, ~549,000 notifications) ` +
      `through the gateway. Token: *staff* (bench user 0, Domain Admins), *member* (member@bench.test, no role; for routes of any signed-in user the member app calls), ` +
      `*none* (public routes). Status is the first answer's; a non-2xx call is not loaded. p50/p99 in ms, exact over every answer of the run.`,
    '',
  );
  if (pg) lines.push(`fastify+pg ceiling of this run: ${Math.round(pg)} req/s (× pg below divides by it; other work shared the 2 cores, so compare ratios, not absolute figures).`, '');
  lines.push(
    `Summary: ${measured.length} answered 2xx and were measured, ${failed.length} answered non-2xx (findings below), ${unresolved.length} could not be addressed with seeded values, ${refused.length} refused the member's token (measured with staff's).`,
    '',
  );
  lines.push(
    'A call whose first answer took over a second was loaded from one connection (marked ¹), not ten; a run with no answer at all says so (each took longer than the run). `first` is the first answer alone, in ms.',
    '',
    '| # | call (as the apps write it) | request | token | status | first | p50 | p99 | req/s | × pg |',
    '| --: | --- | --- | --- | --: | --: | --: | --: | --: | --: |',
  );
  measured.forEach((o, i) => {
    const r = o.result!;
    const none = r.total === 0;
    const one = (o.probeMs ?? 0) > 1000 ? ' ¹' : '';
    lines.push(
      `| ${i + 1} | ${cell(o.label)} | \`${cell(o.path!)}\` | ${o.token}${o.memberRefused ? ` (member: ${o.memberRefused})` : ''} | ${o.status} | ${o.probeMs ?? ''} | ${none ? 'no answer in the run' : r.p50}${one} | ${none ? '' : r.p99} | ${Math.round(r.rps)} | ${pg ? (r.rps / pg).toFixed(3) : ''} |`,
    );
  });
  lines.push('', '## Non-2xx answers (findings)', '');
  if (!failed.length) lines.push('None.');
  else {
    lines.push('| call | request | token | status | answer | where the apps call it |', '| --- | --- | --- | --: | --- | --- |');
    for (const o of failed.sort((a, b) => (b.status ?? 0) - (a.status ?? 0)))
      lines.push(`| ${cell(o.label)} | \`${cell(o.path!)}\` | ${o.token} | ${o.status}${o.missing ? ' (no route)' : ''}${o.down?.length ? ` (down: ${o.down.join(', ')})` : ''} | ${cell(o.body ?? '').slice(0, 200)} | ${cell(o.sites.slice(0, 2).join(', '))}${o.sites.length > 2 ? ` (+${o.sites.length - 2})` : ''} |`);
  }
  lines.push('', "## Member token refused (the staff token was measured)", '');
  if (!refused.length) lines.push('None.');
  else for (const o of refused) lines.push(`- ${o.label} → ${o.memberRefused} for member@bench.test (${o.sites.slice(0, 2).join(', ')})`);
  lines.push('', '## Not addressed: no seeded value or no route', '');
  if (!unresolved.length) lines.push('None.');
  else for (const o of unresolved) lines.push(`- ${o.label}: ${o.unresolved}`);
  lines.push('', '## Query plans of the ten slowest', '');
  if (!run.explain.length) lines.push('Not taken (`--no-explain`, or no call was measured).');
  for (const e of run.explain) {
    lines.push(`### ${e.name} (HTTP ${e.status})`, '');
    if (!e.queries.length) lines.push(e.error ?? 'no SELECT captured (the answer came from a kept snapshot or a cache, or the module runs no SELECT for it)', '');
    for (const q of e.queries) lines.push('```sql', q.sql, `-- ${q.module}, params: ${JSON.stringify(q.params).slice(0, 300)}`, '```', '```', q.plan, '```', '');
  }
  const crashed = outcomes.filter((o, i) => o.down?.length && !outcomes.slice(0, i).some((p) => p.down?.length));
  const notes = [...meta.seedNotes, ...crashed.map((o) => `${o.down!.join(', ')} had exited by ${o.label}: every later call to it answered 502 (see its log in the run's output)`)];
  if (notes.length) lines.push('', '## Notes', '', ...notes.map((n) => `- ${n}`));
  // a run of some modules only (`--app-reads=giving`) does not replace the whole run's report
  const file = path.join(dir, `app-reads-${target}${meta.modules?.length ? `-${meta.modules.join('-')}` : ''}.md`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  writeFileSync(path.join(dir, `${meta.startedAt.replace(/[:.]/g, '-')}-app-reads-${target}.json`), JSON.stringify({ ...meta, ...run, callsFile: CALLS_FILE }, null, 2));
  return file;
}
