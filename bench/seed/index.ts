import { fixtures } from '../lib/fixtures';
import { type Exec, type StepTiming } from './exec';
import { seedMembership } from './membership';
import { missingAttendanceTables, seedAttendance } from './attendance';

export type { Exec, StepTiming } from './exec';

export interface SeedReport {
  /** false when the databases already held the seed (`--reuse`) */
  seeded: boolean;
  ms: number;
  timings: StepTiming[];
  counts: Record<string, number>;
  /** attendance tables that do not exist yet; the attendance scenarios are skipped when any is missing */
  missingAttendance: string[];
  notes: string[];
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
export async function seedAll(dbs: { membership: Exec; attendance: Exec }, opts: { reuse: boolean; log: (line: string) => void }): Promise<SeedReport> {
  const started = performance.now();
  const report: SeedReport = { seeded: false, ms: 0, timings: [], counts: {}, missingAttendance: [], notes: [] };
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
  for (const table of ['churches', 'people', 'households', 'groups', 'group_members', 'users']) report.counts[table] = await count(dbs.membership, table);
  if (!report.missingAttendance.length) {
    for (const table of ['sessions', 'visits', 'visit_sessions']) report.counts[table] = await count(dbs.attendance, table);
  }
  report.ms = Math.round(performance.now() - started);
  return report;
}
