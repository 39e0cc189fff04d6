import { randomUUID } from 'node:crypto';
import { and, eq, gte, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { groupMemberHistory, groupMembers, people } from '../db/schema';

/** A person's whole years of age today (PostgreSQL's `age`), null without a birth date. */
const ageYears = sql<number | null>`date_part('year', age(current_date, ${people.birthDate}))`;
const gender = sql<string>`lower(trim(coalesce(${people.gender}, '')))`;

export interface MemberStats {
  groupId: string;
  memberCount: number;
  leaderCount: number;
  averageAge: number | null;
  femaleCount: number;
  maleCount: number;
}

/** Per group of the church (or the one asked for): its live members, leaders, average age and genders. */
export async function memberStats(db: DbOrTx, churchId: string, groupId?: string): Promise<MemberStats[]> {
  const rows = await db
    .select({
      groupId: groupMembers.groupId,
      memberCount: sql<number>`count(*)::int`,
      leaderCount: sql<number>`(count(*) filter (where ${groupMembers.leader}))::int`,
      averageAge: sql<string | null>`avg(${ageYears})`,
      femaleCount: sql<number>`(count(*) filter (where ${gender} = 'female'))::int`,
      maleCount: sql<number>`(count(*) filter (where ${gender} = 'male'))::int`,
    })
    .from(groupMembers)
    .innerJoin(people, and(eq(people.churchId, groupMembers.churchId), eq(people.id, groupMembers.personId), eq(people.removed, false)))
    .where(and(eq(groupMembers.churchId, churchId), groupId ? eq(groupMembers.groupId, groupId) : undefined))
    .groupBy(groupMembers.groupId);
  return rows.map((r) => ({ ...r, averageAge: r.averageAge === null ? null : Math.round(Number(r.averageAge)) }));
}

/** Joins and leaves per group (and per month `YYYY-MM`, UTC, with `byMonth`) since a time. */
export async function historyCounts(db: DbOrTx, churchId: string, since: Date, opts: { groupId?: string; byMonth?: boolean } = {}) {
  const month: SQL<string> = opts.byMonth ? sql<string>`to_char(${groupMemberHistory.at} at time zone 'UTC', 'YYYY-MM')` : sql<string>`''`;
  return db
    .select({
      groupId: groupMemberHistory.groupId,
      month,
      joins: sql<number>`(count(*) filter (where ${groupMemberHistory.action} = 'joined'))::int`,
      leaves: sql<number>`(count(*) filter (where ${groupMemberHistory.action} = 'left'))::int`,
    })
    .from(groupMemberHistory)
    .where(and(eq(groupMemberHistory.churchId, churchId), gte(groupMemberHistory.at, since), opts.groupId ? eq(groupMemberHistory.groupId, opts.groupId) : undefined))
    .groupBy(...(opts.byMonth ? [groupMemberHistory.groupId, month] : [groupMemberHistory.groupId]));
}

/** The live members of a group by gender (as written, blank → `Unassigned`) and, with a birth date, by age and gender. */
export async function demographicRows(db: DbOrTx, churchId: string, groupId: string) {
  return db
    .select({ gender: sql<string>`coalesce(nullif(trim(${people.gender}), ''), 'Unassigned')`, age: ageYears, count: sql<number>`count(*)::int` })
    .from(groupMembers)
    .innerJoin(people, and(eq(people.churchId, groupMembers.churchId), eq(people.id, groupMembers.personId), eq(people.removed, false)))
    .where(and(eq(groupMembers.churchId, churchId), eq(groupMembers.groupId, groupId)))
    .groupBy(sql`1`, sql`2`);
}

/** Records joins or leaves (one row each) in the caller's transaction. */
export async function recordHistory(db: DbOrTx, churchId: string, events: Array<{ groupId: string; personId: string; action: 'joined' | 'left' }>, at = new Date()) {
  if (!events.length) return;
  await db.insert(groupMemberHistory).values(events.map((e) => ({ id: randomUUID(), churchId, ...e, at })));
}
