import type { DbOrTx } from '@church/common';
import { demographicRows, historyCounts, memberStats, type MemberStats } from '../repos/group-health';
import { listGroups, type GroupRecord } from '../repos/groups';
import { clock } from './clock';
import { ageGroups, countsByName } from './people/demographics';
import { DAY_MS } from '@church/common';

const noStats = (groupId: string): MemberStats => ({ groupId, memberCount: 0, leaderCount: 0, averageAge: null, femaleCount: 0, maleCount: 0 });

/**
 * Leaves over 90 days as a percentage (one decimal) of the size the group had when the period began (today's
 * members less those who joined, plus those who left); when that is not positive, of everyone who was in it.
 */
export function churnRate(memberCount: number, joins: number, leaves: number): number {
  const start = memberCount - joins + leaves;
  const base = start > 0 ? start : memberCount + leaves;
  return base > 0 ? Math.round((leaves / base) * 1000) / 10 : 0;
}

/** What `groups/health/summary` reads that the church's data version covers: the standard groups and their members' stats. */
export interface SummaryMembers {
  groups: Array<Pick<GroupRecord, 'id' | 'name' | 'categoryName'>>;
  stats: MemberStats[];
}

/** The standard groups and their members' stats (two statements, side by side). */
export async function summaryMembers(db: DbOrTx, churchId: string): Promise<SummaryMembers> {
  const [groups, stats] = await Promise.all([listGroups(db, churchId, { tag: 'standard' }), memberStats(db, churchId)]);
  return { groups: groups.map((g) => ({ id: g.id, name: g.name, categoryName: g.categoryName })), stats };
}

/** The last 90 days' joins and leaves per group of the church (not under the data version: the window moves). */
export const recentHistory = (db: DbOrTx, churchId: string) => historyCounts(db, churchId, new Date(clock.now().getTime() - 90 * DAY_MS));

/** `groups/health/summary`: for each group listed, its members and the last 90 days' joins, leaves and churn. */
export function healthSummary({ groups, stats }: SummaryMembers, history: Array<{ groupId: string; joins: number; leaves: number }>) {
  const statsOf = new Map(stats.map((s) => [s.groupId, s]));
  const historyOf = new Map(history.map((h) => [h.groupId, h]));
  return groups.map((g) => {
    const { memberCount, leaderCount, averageAge, femaleCount, maleCount } = statsOf.get(g.id) ?? noStats(g.id);
    const h = historyOf.get(g.id);
    const joins90 = h?.joins ?? 0;
    const leaves90 = h?.leaves ?? 0;
    return { groupId: g.id, name: g.name, categoryName: g.categoryName, memberCount, leaderCount, averageAge, femaleCount, maleCount, joins90, leaves90, churnRate90: churnRate(memberCount, joins90, leaves90) };
  });
}

/** `groups/:id/health`: the summary of one group, its joins and leaves month by month (the last 12, UTC), and its people by gender and age. */
export async function groupHealth(db: DbOrTx, churchId: string, groupId: string) {
  const now = clock.now();
  const firstMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1));
  const [[stats], [last90], months, people] = await Promise.all([
    memberStats(db, churchId, groupId),
    historyCounts(db, churchId, new Date(now.getTime() - 90 * DAY_MS), { groupId }),
    historyCounts(db, churchId, firstMonth, { groupId, byMonth: true }),
    demographicRows(db, churchId, groupId),
  ]);
  const { memberCount, leaderCount, averageAge } = stats ?? noStats(groupId);
  const joins90 = last90?.joins ?? 0;
  const leaves90 = last90?.leaves ?? 0;
  const monthly = Array.from({ length: 12 }, (_, i) => {
    const d = new Date(Date.UTC(firstMonth.getUTCFullYear(), firstMonth.getUTCMonth() + i, 1));
    const month = `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
    const row = months.find((m) => m.month === month);
    return { month, joins: row?.joins ?? 0, leaves: row?.leaves ?? 0 };
  });
  return {
    memberCount,
    leaderCount,
    averageAge,
    joins90,
    leaves90,
    churnRate90: churnRate(memberCount, joins90, leaves90),
    monthly,
    demographics: { gender: countsByName(people.map((r) => ({ name: r.gender, count: r.count }))), ageGroups: ageGroups(people) },
  };
}
