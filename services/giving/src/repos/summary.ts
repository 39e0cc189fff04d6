import { and, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { preparedReader, rowsOf, type DbOrTx } from '@church/common';
import { donations, fundDayTotals, fundDonations, funds } from '../db/schema';
import { dayRange } from '../lib/days';
import { amountOf } from '../lib/money';


const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;
/** The range as the prepared reads take it: an open end is an infinite date. */
const days = (from?: Date, to?: Date) => ({ from: from ? isoDay(from) : '-infinity', to: to ? isoDay(to) : 'infinity' });

// The two reads of the kept totals, rendered once (both are hot: the summary page and a public thermometer).
// The Sunday that starts a day's week is integer arithmetic from a known Sunday (1970-01-04).
const readWeeks = preparedReader(
  { week: sql<string>`week`.as('week'), fund: sql<string>`fund`.as('fund'), total: sql<string>`total`.as('total'), count: sql<number>`count`.as('count') },
  () =>
    sql.join(
      [
        sql`select to_char(w.sunday, 'YYYY-MM-DD') as week, f.name as fund, sum(t.total_amount)::text as total, sum(t.gift_count)::int as count`,
        sql`from ${fundDayTotals} t join ${funds} f on f.church_id = t.church_id and f.id = t.fund_id`,
        sql`cross join lateral (select t.day - ((t.day - date '1970-01-04') % 7 + 7) % 7 as sunday) w`,
        sql`where t.church_id = ${p('churchId', 'uuid')} and t.day >= ${p('from', 'date')} and t.day < ${p('to', 'date')} and f.tax_deductible`,
        sql`group by w.sunday, f.name having sum(t.gift_count) > 0 order by w.sunday, f.name`,
      ],
      sql` `,
    ),
);
const readFundTotal = preparedReader({ total: sql<string>`total`.as('total'), count: sql<number>`count`.as('count') }, () =>
  sql.join(
    [
      sql`select coalesce(sum(t.total_amount), 0)::text as total, coalesce(sum(t.gift_count), 0)::int as count`,
      sql`from ${funds} f left join ${fundDayTotals} t on t.church_id = f.church_id and t.fund_id = f.id and t.day >= ${p('from', 'date')} and t.day < ${p('to', 'date')}`,
      sql`where f.church_id = ${p('churchId', 'uuid')} and f.id = ${p('fundId', 'uuid')} and not f.removed group by f.id`,
    ],
    sql` `,
  ),
);

/** The summary by fund (see `donationSummary`): a few hundred kept daily totals for a year. */
export async function fundSummary(db: DbOrTx, churchId: string, startDate?: Date, endDate?: Date) {
  const { from, to } = dayRange(startDate, endDate);
  const rows = await readWeeks(db, { churchId, ...days(from, to) });
  return rows.map((r) => ({ week: r.week, fund: r.fund, totalAmount: amountOf(r.total), count: Number(r.count) }));
}

/** A row of `donorRows`: a person's total (`fund` null) or their total to one fund; `person_id` null for gifts without a person. */
export interface DonorRow {
  person_id: string | null;
  fund: string | null;
  total: string;
  count: number;
}

/**
 * The rows of the summary per donor over the range (`[from, to)`): per person (and for gifts without a person)
 * their total and count of complete donations to tax-deductible funds, each followed by their totals per fund,
 * in one statement (grouping sets: per person and fund, and per person). It needs the donor, which the kept
 * totals do not keep: it sums the range's donations and their allocations.
 */
export async function donorRows(db: DbOrTx, churchId: string, from?: Date, to?: Date): Promise<DonorRow[]> {
  const conditions: SQL[] = [eq(donations.churchId, churchId), eq(donations.status, 'complete'), eq(funds.taxDeductible, true)];
  if (from) conditions.push(gte(donations.donationDate, from));
  if (to) conditions.push(lt(donations.donationDate, to));
  return rowsOf<DonorRow>(
    await db.execute(sql`
      select ${donations.personId} as person_id, ${funds.name} as fund, sum(${fundDonations.amount})::text as total, count(distinct ${donations.id})::int as count
      from ${donations}
      join ${fundDonations} on ${fundDonations.churchId} = ${donations.churchId} and ${fundDonations.donationId} = ${donations.id}
      join ${funds} on ${funds.churchId} = ${fundDonations.churchId} and ${funds.id} = ${fundDonations.fundId}
      where ${and(...conditions)}
      group by grouping sets ((${donations.personId}, ${funds.name}), (${donations.personId}))
      order by ${donations.personId} nulls last, ${funds.name} nulls first`),
  );
}

/**
 * A fund's public total of complete donations in a range, `{fundId, totalAmount, donationCount}` from the kept
 * daily totals (`donationCount`: gifts to the fund, one per allocation), in one query with the fund's check:
 * `undefined` when the church has no such live fund.
 */
export async function fundTotal(db: DbOrTx, churchId: string, fundId: string, startDate?: Date, endDate?: Date) {
  const { from, to } = dayRange(startDate, endDate);
  const [row] = await readFundTotal(db, { churchId, fundId, ...days(from, to) });
  if (!row) return undefined;
  return { fundId, totalAmount: amountOf(row.total), donationCount: Number(row.count) };
}
