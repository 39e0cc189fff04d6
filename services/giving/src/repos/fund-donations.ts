import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gte, ilike, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { prepared, type DbOrTx } from '@church/common';
import { donations, fundDonations, funds } from '../db/schema';
import { dayRange } from '../lib/days';
import { amountOf, centsText } from '../lib/money';

export type FundDonationRow = typeof fundDonations.$inferSelect;

/** The filters of `GET /giving/funddonations`. */
export interface FundDonationFilter {
  id?: string;
  ids?: string[];
  donationId?: string;
  personId?: string;
  fundId?: string;
  fundName?: string;
  startDate?: Date;
  endDate?: Date;
}

const select = (db: DbOrTx, where: SQL[]) =>
  db
    .select({
      id: fundDonations.id,
      donationId: fundDonations.donationId,
      fundId: fundDonations.fundId,
      amount: fundDonations.amount,
      fundName: funds.name,
      personId: donations.personId,
      donationDate: donations.donationDate,
      batchId: donations.batchId,
      currency: donations.currency,
    })
    .from(fundDonations)
    .leftJoin(donations, and(eq(donations.churchId, fundDonations.churchId), eq(donations.id, fundDonations.donationId)))
    .leftJoin(funds, and(eq(funds.churchId, fundDonations.churchId), eq(funds.id, fundDonations.fundId)))
    .where(and(...where))
    .orderBy(desc(donations.donationDate), asc(fundDonations.id));

type Selected = Awaited<ReturnType<typeof select>>[number];

/** An allocation as the API answers it: with its fund's name and its donation (as the staff app's fund page reads it). */
const item = (r: Selected) => ({
  id: r.id,
  donationId: r.donationId,
  fundId: r.fundId,
  amount: amountOf(r.amount),
  fundName: r.fundName,
  personId: r.personId,
  donationDate: r.donationDate,
  donation: r.donationDate ? { id: r.donationId, batchId: r.batchId, personId: r.personId, donationDate: r.donationDate, currency: r.currency ?? 'usd' } : null,
});
export type FundDonationItem = ReturnType<typeof item>;

/** A church's allocations matching the filter, newest donation first. */
export async function listFundDonations(db: DbOrTx, churchId: string, f: FundDonationFilter): Promise<FundDonationItem[]> {
  const where: SQL[] = [eq(fundDonations.churchId, churchId)];
  if (f.id) where.push(eq(fundDonations.id, f.id));
  if (f.ids) where.push(inArray(fundDonations.id, f.ids.length ? f.ids : [randomUUID()]));
  if (f.donationId) where.push(eq(fundDonations.donationId, f.donationId));
  // The allocation keeps its donation's person (triggers): `fund_donations_church_person_idx` finds them.
  if (f.personId) where.push(eq(fundDonations.personId, f.personId), eq(donations.personId, f.personId));
  if (f.fundId) where.push(eq(fundDonations.fundId, f.fundId));
  if (f.fundName) where.push(ilike(funds.name, f.fundName.replace(/[\\%_]/g, (c) => `\\${c}`)));
  const { from, to } = dayRange(f.startDate, f.endDate);
  if (from) where.push(gte(donations.donationDate, from));
  if (to) where.push(lt(donations.donationDate, to));
  return (await select(db, where)).map(item);
}

/** A list's filter as the page reads take it: the present filters (their names, in `LIST_FILTERS` order) and their values. */
const LIST_FILTERS = ['donationId', 'personId', 'fundId', 'fundName', 'from', 'to'] as const;
type ListFilter = (typeof LIST_FILTERS)[number];
const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;
const filterSql: Record<ListFilter, SQL> = {
  donationId: sql`fd.donation_id = ${p('donationId', 'uuid')}`,
  // the allocation's kept person, so the read starts from `fund_donations_church_person_idx`; the donation's too
  personId: sql`fd.person_id = ${p('personId', 'uuid')} and d.person_id = ${p('personId', 'uuid')}`,
  fundId: sql`fd.fund_id = ${p('fundId', 'uuid')}`,
  fundName: sql`f.name ilike ${p('fundName', 'text')}`,
  from: sql`d.donation_date >= ${p('from', 'timestamptz')}`,
  to: sql`d.donation_date < ${p('to', 'timestamptz')}`,
};

/** One row of a page, every value as text (`k`: the donation's instant as PostgreSQL writes it, the page's key). */
interface PageRow {
  id: string;
  donation_id: string;
  fund_id: string;
  amount: string;
  fund_name: string | null;
  person_id: string | null;
  batch_id: string | null;
  currency: string;
  donation_date: string;
  k: string;
}

/**
 * A page of the list, in the list's order (the donation's instant, newest first, then the allocation's id), after
 * the key of the last row of the page before (`k`, `after`; the first page starts at `infinity`). Rendered once
 * per set of filters present. With no filter the page walks `donations_church_date_idx` backwards and finds each
 * gift's allocations in `fund_donations_church_donation_idx`, sorting only the allocations of one instant: no read
 * of the whole table per page, and no sort of it.
 */
const pageReaders = new Map<string, (db: DbOrTx, values: Record<string, unknown>) => Promise<PageRow[]>>();
function pageReader(present: ListFilter[]) {
  const key = present.join(',');
  let read = pageReaders.get(key);
  if (!read) {
    const filters = present.map((name) => sql` and ${filterSql[name]}`);
    read = prepared<PageRow>(
      sql.join(
        [
          sql`select fd.id, fd.donation_id, fd.fund_id, fd.amount::text as amount, f.name as fund_name, d.person_id, d.batch_id, d.currency,`,
          sql`to_char(d.donation_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as donation_date, d.donation_date::text as k`,
          sql`from ${fundDonations} fd join ${donations} d on d.church_id = fd.church_id and d.id = fd.donation_id`,
          sql`left join ${funds} f on f.church_id = fd.church_id and f.id = fd.fund_id`,
          sql`where fd.church_id = ${p('churchId', 'uuid')} and d.church_id = ${p('churchId', 'uuid')}`,
          sql`and d.donation_date <= ${p('k', 'timestamptz')} and (d.donation_date < ${p('k', 'timestamptz')} or fd.id > ${p('after', 'uuid')})`,
          ...filters,
          sql`order by d.donation_date desc, fd.id limit ${p('limit', 'int')}`,
        ],
        sql` `,
      ),
    );
    pageReaders.set(key, read);
  }
  return read;
}

// JSON values written from the rows' text: a uuid needs no escaping; money as `amountOf` answers it (12.50 → 12.5).
const uuid = (v: string | null) => (v === null ? 'null' : `"${v}"`);
const money = (v: string) => JSON.stringify(amountOf(v));

/** A page's rows as the list's JSON items (comma-separated): `item`'s fields, in its order, with its values. */
function pageJson(rows: PageRow[]): string {
  let out = '';
  for (const r of rows) {
    if (out) out += ',';
    const date = `"${r.donation_date}"`;
    out += `{"id":"${r.id}","donationId":"${r.donation_id}","fundId":"${r.fund_id}","amount":${money(r.amount)},"fundName":${r.fund_name === null ? 'null' : JSON.stringify(r.fund_name)},`;
    out += `"personId":${uuid(r.person_id)},"donationDate":${date},"donation":{"id":"${r.donation_id}","batchId":${uuid(r.batch_id)},"personId":${uuid(r.person_id)},`;
    out += `"donationDate":${date},"currency":${JSON.stringify(r.currency)}}}`;
  }
  return out;
}

/** Rows per page of a list: about 2.5 MB of JSON, the most a list holds in memory at once. */
export const LIST_PAGE_ROWS = 5000;

/**
 * `GET /funddonations` (and `/my`): the church's allocations matching the filter, newest donation first, as the
 * JSON text `listFundDonations` would serialize. A list that fits one page is one statement and answered whole
 * (`whole`); a longer one (the staff app's giving statements read every allocation of the church) is read page by
 * page after the last row's key and streamed (`rest` after `first`), so the work and memory of a request are one
 * page at a time whatever the list's length, and no connection is held between pages (a slow reader holds none).
 * Pages are separate statements: a write between two pages may show in the later ones.
 */
export async function fundDonationsJson(
  db: DbOrTx,
  churchId: string,
  f: Omit<FundDonationFilter, 'id' | 'ids'>,
  pageRows = LIST_PAGE_ROWS,
): Promise<{ whole: string } | { first: string; rest: AsyncGenerator<string> }> {
  const { from, to } = dayRange(f.startDate, f.endDate);
  const values: Record<string, unknown> = {
    churchId,
    donationId: f.donationId,
    personId: f.personId,
    fundId: f.fundId,
    fundName: f.fundName?.replace(/[\\%_]/g, (c) => `\\${c}`),
    from: from?.toISOString(),
    to: to?.toISOString(),
    limit: pageRows,
  };
  const read = pageReader(LIST_FILTERS.filter((name) => values[name] !== undefined));
  const page = (k: string, after: string) => read(db, { ...values, k, after });
  const rows = await page('infinity', '00000000-0000-0000-0000-000000000000');
  if (rows.length < pageRows) return { whole: `[${pageJson(rows)}]` };
  async function* rest(last: PageRow): AsyncGenerator<string> {
    for (;;) {
      const next = await page(last.k, last.id);
      if (next.length) yield `,${pageJson(next)}`;
      if (next.length < pageRows) break;
      last = next[next.length - 1]!;
    }
    yield ']';
  }
  return { first: `[${pageJson(rows)}`, rest: rest(rows[rows.length - 1]!) };
}

/** One allocation of the church, or undefined. */
export async function fundDonationById(db: DbOrTx, churchId: string, id: string): Promise<FundDonationItem | undefined> {
  return (await listFundDonations(db, churchId, { id }))[0];
}

/**
 * Locks the church's donations with these ids (in id order, so two writers never wait on each other in a
 * circle): every write of allocations or of an amount holds its donations' rows until it commits, so the
 * allocations checked are the ones that commit. Answers the ids found.
 */
export async function lockDonations(tx: DbOrTx, churchId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await tx
    .select({ id: donations.id })
    .from(donations)
    .where(and(eq(donations.churchId, churchId), inArray(donations.id, [...new Set(ids)])))
    .orderBy(asc(donations.id))
    .for('update');
  return new Set(rows.map((r) => r.id));
}

/** Of these donations, those whose allocations now sum above their amount: `{id, amount, allocated}` as decimal text. */
export async function overAllocated(tx: DbOrTx, churchId: string, ids: string[]): Promise<Array<{ id: string; amount: string; allocated: string }>> {
  if (!ids.length) return [];
  return tx
    .select({ id: donations.id, amount: sql<string>`${donations.amount}::text`, allocated: sql<string>`sum(${fundDonations.amount})::text` })
    .from(donations)
    .innerJoin(fundDonations, and(eq(fundDonations.churchId, donations.churchId), eq(fundDonations.donationId, donations.id)))
    .where(and(eq(donations.churchId, churchId), inArray(donations.id, [...new Set(ids)])))
    .groupBy(donations.id, donations.amount)
    .having(sql`sum(${fundDonations.amount}) > ${donations.amount}`);
}

/** An allocation to write: a new one (no `id`) or changes to one of the church's. */
export interface AllocationInput {
  id?: string;
  donationId?: string;
  fundId?: string;
  cents?: number;
}

/** The allocations as they were before a write (for the audit log), by id. */
export async function allocationsById(tx: DbOrTx, churchId: string, ids: string[]): Promise<Map<string, FundDonationRow>> {
  if (!ids.length) return new Map();
  const rows = await tx.select().from(fundDonations).where(and(eq(fundDonations.churchId, churchId), inArray(fundDonations.id, ids)));
  return new Map(rows.map((r) => [r.id, r]));
}

/** Writes allocations in order, in the caller's transaction; an `id` the church does not have answers undefined in its place. */
export async function writeAllocations(tx: DbOrTx, churchId: string, items: AllocationInput[]): Promise<Array<FundDonationRow | undefined>> {
  const out: Array<FundDonationRow | undefined> = [];
  for (const it of items) {
    const values = {
      ...(it.donationId ? { donationId: it.donationId } : {}),
      ...(it.fundId ? { fundId: it.fundId } : {}),
      ...(it.cents !== undefined ? { amount: centsText(it.cents) } : {}),
    };
    if (it.id) {
      const [row] = await tx
        .update(fundDonations)
        .set({ ...values, updatedAt: new Date() })
        .where(and(eq(fundDonations.churchId, churchId), eq(fundDonations.id, it.id)))
        .returning();
      out.push(row);
    } else {
      const [row] = await tx
        .insert(fundDonations)
        .values({ id: randomUUID(), churchId, donationId: it.donationId!, fundId: it.fundId!, amount: centsText(it.cents ?? 0) })
        .returning();
      out.push(row);
    }
  }
  return out;
}

/**
 * Makes `wanted` the whole set of a donation's allocations: an item with the `id` of one of them updates it (its
 * id kept), others are added, and the donation's allocations not listed are removed. Answers the rows before and
 * after, for the audit log.
 */
export async function replaceAllocations(
  tx: DbOrTx,
  churchId: string,
  donationId: string,
  wanted: Array<{ id?: string; fundId: string; cents: number }>,
): Promise<Array<{ before?: FundDonationRow; after?: FundDonationRow }>> {
  const current = await tx.select().from(fundDonations).where(and(eq(fundDonations.churchId, churchId), eq(fundDonations.donationId, donationId)));
  const byId = new Map(current.map((r) => [r.id, r]));
  const kept = new Set<string>();
  const changes: Array<{ before?: FundDonationRow; after?: FundDonationRow }> = [];
  for (const w of wanted) {
    const before = w.id ? byId.get(w.id) : undefined;
    if (before && !kept.has(before.id)) {
      kept.add(before.id);
      const [after] = await writeAllocations(tx, churchId, [{ id: before.id, fundId: w.fundId, cents: w.cents }]);
      changes.push({ before, after });
    } else {
      const [after] = await writeAllocations(tx, churchId, [{ donationId, fundId: w.fundId, cents: w.cents }]);
      changes.push({ after });
    }
  }
  const gone = current.filter((r) => !kept.has(r.id)).map((r) => r.id);
  if (gone.length) {
    await tx.delete(fundDonations).where(and(eq(fundDonations.churchId, churchId), inArray(fundDonations.id, gone)));
    for (const id of gone) changes.push({ before: byId.get(id) });
  }
  return changes;
}

/** Deletes the allocations of these donations (a donation or a batch going); answers the rows removed. */
export async function deleteAllocationsOf(tx: DbOrTx, churchId: string, donationIds: string[]): Promise<FundDonationRow[]> {
  if (!donationIds.length) return [];
  return tx.delete(fundDonations).where(and(eq(fundDonations.churchId, churchId), inArray(fundDonations.donationId, donationIds))).returning();
}

/** Deletes one allocation of the church; answers it as it was, or undefined. */
export async function deleteAllocation(tx: DbOrTx, churchId: string, id: string): Promise<FundDonationRow | undefined> {
  const [row] = await tx.delete(fundDonations).where(and(eq(fundDonations.churchId, churchId), eq(fundDonations.id, id))).returning();
  return row;
}
