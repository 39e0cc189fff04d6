import type { FastifyInstance } from 'fastify';
import { and, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { rowsOf } from '@church/common';
import { donations, fundDonations, funds } from '../db/schema';
import { amountOf } from '../domain/money';

const DAY = 86_400_000;

/** `[start, end)` of a range of days: the end date counts whole. */
export function dayRange(startDate?: Date, endDate?: Date): { from?: Date; to?: Date } {
  const day = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  return { from: startDate ? day(startDate) : undefined, to: endDate ? new Date(day(endDate).getTime() + DAY) : undefined };
}

/**
 * Summary rows `{week, fund, totalAmount, count}`: complete donations to tax-deductible funds, by Sunday-start
 * week (UTC) and fund, summed in the database; `byPerson` adds the person and their name from membership
 * (one batched internal call per 1000 people).
 */
export async function donationSummary(app: FastifyInstance, churchId: string, opts: { startDate?: Date; endDate?: Date; byPerson: boolean }) {
  const { from, to } = dayRange(opts.startDate, opts.endDate);
  const day = sql`(${donations.donationDate} at time zone 'UTC')::date`;
  const week = sql`(${day} - extract(dow from ${day})::int)`;
  const conditions: SQL[] = [eq(donations.churchId, churchId), eq(donations.status, 'complete'), eq(funds.taxDeductible, true)];
  if (from) conditions.push(gte(donations.donationDate, from));
  if (to) conditions.push(lt(donations.donationDate, to));
  const person = opts.byPerson ? sql`, ${donations.personId}` : sql``;
  const rows = rowsOf<{ week: string; fund: string; total: string; count: number; person_id?: string | null }>(
    await app.db.execute(sql`
      select to_char(${week}, 'YYYY-MM-DD') as week, ${funds.name} as fund, sum(${fundDonations.amount})::text as total,
             count(distinct ${donations.id})::int as count${opts.byPerson ? sql`, ${donations.personId} as person_id` : sql``}
      from ${donations}
      join ${fundDonations} on ${fundDonations.churchId} = ${donations.churchId} and ${fundDonations.donationId} = ${donations.id}
      join ${funds} on ${funds.churchId} = ${fundDonations.churchId} and ${funds.id} = ${fundDonations.fundId}
      where ${and(...conditions)}
      group by ${week}, ${funds.name}${person}
      order by 1, 2${person}`),
  );
  if (!opts.byPerson) return rows.map((r) => ({ week: r.week, fund: r.fund, totalAmount: amountOf(r.total), count: Number(r.count) }));
  const ids = [...new Set(rows.map((r) => r.person_id).filter((v): v is string => !!v))];
  const names = new Map<string, string | null>();
  for (let i = 0; i < ids.length; i += 1000) {
    const chunk = ids.slice(i, i + 1000);
    const people = (await app.deps.internal.post('membership', '/membership/internal/people/basic', { churchId, ids: chunk })) as Array<{ id: string; displayName: string | null }>;
    for (const p of people ?? []) names.set(p.id, p.displayName ?? null);
  }
  return rows.map((r) => ({
    week: r.week,
    fund: r.fund,
    totalAmount: amountOf(r.total),
    count: Number(r.count),
    personId: r.person_id ?? null,
    displayName: r.person_id ? (names.get(r.person_id) ?? null) : 'Anonymous',
  }));
}

/** A fund's total of complete donations in a range: `{fundId, totalAmount, donationCount}`. */
export async function fundTotal(app: FastifyInstance, churchId: string, fundId: string, startDate?: Date, endDate?: Date) {
  const { from, to } = dayRange(startDate, endDate);
  const conditions: SQL[] = [eq(fundDonations.churchId, churchId), eq(fundDonations.fundId, fundId), eq(donations.status, 'complete')];
  if (from) conditions.push(gte(donations.donationDate, from));
  if (to) conditions.push(lt(donations.donationDate, to));
  const [row] = await app.db
    .select({ total: sql<string>`coalesce(sum(${fundDonations.amount}), 0)::text`, count: sql<number>`count(distinct ${fundDonations.donationId})::int` })
    .from(fundDonations)
    .innerJoin(donations, and(eq(donations.churchId, fundDonations.churchId), eq(donations.id, fundDonations.donationId)))
    .where(and(...conditions));
  return { fundId, totalAmount: amountOf(row?.total ?? '0'), donationCount: Number(row?.count ?? 0) };
}

