import { fixtures } from '../lib/fixtures';
import { type Exec, type StepTiming } from './exec';
import { seedMembership } from './membership';
import { missingAttendanceTables, seedAttendance } from './attendance';
import { GIVING_TABLES, givingSeeded, seedGiving } from './giving';
import { CONTENT_TABLES, contentSeeded, seedContent } from './content';
import { DOING_TABLES, doingSeeded, resetDoing, seedDoing } from './doing';
import { seedExtras } from './extras';
import { MESSAGING_TABLES, messagingSeeded, resetMessaging, seedMessaging, siblingConnection } from './messaging';

export type { Exec, StepTiming } from './exec';

export interface SeedReport {
  /** false when the databases already held the seed (`--reuse`) */
  seeded: boolean;
  ms: number;
  timings: StepTiming[];
  counts: Record<string, number>;
  /** attendance tables that do not exist yet; the attendance scenarios are skipped when any is missing */
  missingAttendance: string[];
  /** module → its bench tables that do not exist yet (giving, content, doing): its seed and scenarios are skipped */
  missing: Record<string, string[]>;
  notes: string[];
}

/** The modules seeded after membership and attendance, each into its own database, each on its own check. */
const LATER = {
  giving: { tables: GIVING_TABLES, seeded: givingSeeded, seed: seedGiving, counts: ['funds', 'donations', 'fund_donations'], what: 'five years of weekly gifts, about 494,000 donations' },
  content: { tables: CONTENT_TABLES, seeded: contentSeeded, seed: seedContent, counts: ['pages', 'sections', 'elements', 'posts', 'events', 'sermons'], what: 'a 40-page site, posts, events, sermons' },
  doing: { tables: DOING_TABLES, seeded: doingSeeded, seed: seedDoing, counts: ['plans', 'positions', 'plan_items'], what: 'plans, positions, plan items' },
  messaging: { tables: MESSAGING_TABLES, seeded: messagingSeeded, seed: seedMessaging, counts: ['notifications'], what: 'about 545,000 notifications, the live-stream chats' },
} as const;
export type LaterModule = keyof typeof LATER;
export const LATER_MODULES = Object.keys(LATER) as LaterModule[];

async function missingTables(db: Exec, tables: readonly string[]): Promise<string[]> {
  const { rows } = await db.query(`select t from unnest($1::text[]) t where to_regclass(quote_ident(t)) is null`, [tables]);
  return rows.map((r) => String(r.t));
}

async function count(db: Exec, table: string): Promise<number> {
  const { rows } = await db.query(`select count(*)::int as n from ${table}`);
  return Number(rows[0]?.n ?? 0);
}

async function alreadySeeded(db: Exec): Promise<boolean> {
  const { rows } = await db.query(`select count(*)::int as n from churches where id = $1`, [fixtures.churchId]);
  return Number(rows[0]?.n ?? 0) > 0;
}

/** Seeds membership then attendance (skipped with a note while its tables are missing), then refreshes statistics. */
export async function seedAll(
  given: { membership: Exec; attendance: Exec } & Record<Exclude<LaterModule, 'messaging'>, Exec> & { messaging?: Exec },
  opts: { reuse: boolean; log: (line: string) => void; extras?: boolean },
): Promise<SeedReport> {
  const started = performance.now();
  const report: SeedReport = { seeded: false, ms: 0, timings: [], counts: {}, missingAttendance: [], missing: {}, notes: [] };
  // Messaging's database: the caller's connection, else one opened next to membership's (closed at the end).
  const sibling = given.messaging ? undefined : await siblingConnection(given.membership);
  const dbs = { ...given, messaging: given.messaging ?? sibling };
  report.missingAttendance = await missingAttendanceTables(dbs.attendance);
  if (opts.reuse && (await alreadySeeded(dbs.membership))) {
    report.notes.push('reused the databases seeded by an earlier run (vacuumed first)');
    // Earlier runs' check-ins left dead rows: clean them now rather than let autovacuum run during a scenario.
    await dbs.membership.query('vacuum analyze');
    if (!report.missingAttendance.length) await dbs.attendance.query('vacuum analyze');
  } else {
    report.seeded = true;
    opts.log('seeding membership ...');
    const logged = (timings: StepTiming[]) => {
      for (const t of timings) opts.log(`  ${t.step}: ${t.rows} rows, ${(t.ms / 1000).toFixed(1)} s`);
      return timings;
    };
    report.timings.push(...logged(await seedMembership(dbs.membership)));
    if (report.missingAttendance.length) {
      report.notes.push(`attendance tables missing (${report.missingAttendance.join(', ')}): attendance seed and scenarios skipped`);
    } else {
      opts.log('seeding attendance (about 3M visit sessions) ...');
      report.timings.push(...logged(await seedAttendance(dbs.attendance)));
    }
    // Fresh statistics and visibility maps, as autovacuum would have them on a database that grew slowly.
    const analyzeStart = performance.now();
    await dbs.membership.query('vacuum analyze');
    if (!report.missingAttendance.length) await dbs.attendance.query('vacuum analyze');
    report.timings.push({ step: 'vacuum analyze', rows: 0, ms: Math.round(performance.now() - analyzeStart) });
  }
  // Giving, content and doing: each seeded when its database does not hold its seed yet (so `--reuse` of
  // databases seeded before these modules existed seeds just them), each skipped while its tables are missing.
  for (const module of LATER_MODULES) {
    const spec = LATER[module];
    const db = dbs[module];
    if (!db) {
      report.missing[module] = ['(no connection to its database)'];
      report.notes.push(`${module}: no connection to its database was given: ${module} seed and scenarios skipped`);
      continue;
    }
    const missing = await missingTables(db, spec.tables);
    if (missing.length) {
      report.missing[module] = missing;
      report.notes.push(`${module} tables missing (${missing.join(', ')}): ${module} seed and scenarios skipped`);
      continue;
    }
    if (await spec.seeded(db, fixtures.churchId)) {
      if (module === 'doing') await resetDoing(db, fixtures.churchId);
      if (module === 'messaging') await resetMessaging(db, fixtures.churchId);
      await db.query('vacuum analyze');
      continue;
    }
    report.seeded = true;
    opts.log(`seeding ${module} (${spec.what}) ...`);
    // one transaction: a failed seed leaves no half-seeded database for the next `--reuse` to take as seeded
    await db.query('begin');
    const timings = await spec.seed(db).catch(async (err: unknown) => {
      await db.query('rollback');
      throw err;
    });
    await db.query('commit');
    for (const t of timings) opts.log(`  ${t.step}: ${t.rows} rows, ${(t.ms / 1000).toFixed(1)} s`);
    report.timings.push(...timings);
    const analyzeStart = performance.now();
    await db.query('vacuum analyze');
    report.timings.push({ step: `vacuum analyze ${module}`, rows: 0, ms: Math.round(performance.now() - analyzeStart) });
  }
  // The areas only the app-reads mode reads (seed/extras.ts): each module's part in one transaction, when missing.
  if (opts.extras) {
    for (const module of ['membership', 'giving', 'content', 'doing', 'messaging'] as const) {
      const db = dbs[module];
      if (!db || report.missing[module]) continue;
      await db.query('begin');
      const timings = await seedExtras(module, db).catch(async (err: unknown) => {
        await db.query('rollback');
        throw err;
      });
      await db.query('commit');
      if (!timings) continue;
      report.seeded = true;
      opts.log(`seeded the app areas of ${module}: ${timings.map((t) => `${t.step} ${t.rows}`).join(', ')}`);
      report.timings.push(...timings.map((t) => ({ ...t, step: `${module} extras: ${t.step}` })));
      await db.query('analyze');
    }
  }
  for (const table of ['churches', 'people', 'households', 'groups', 'group_members', 'users']) report.counts[table] = await count(dbs.membership, table);
  for (const module of LATER_MODULES) {
    const db = dbs[module];
    if (report.missing[module] || !db) continue;
    for (const table of LATER[module].counts) report.counts[table] = await count(db, table);
  }
  if (!report.missingAttendance.length) {
    for (const table of ['sessions', 'visits', 'visit_sessions']) report.counts[table] = await count(dbs.attendance, table);
  }
  await sibling?.end();
  report.ms = Math.round(performance.now() - started);
  return report;
}
