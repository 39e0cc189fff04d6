import { randomUUID } from 'node:crypto';
import { and, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import { badRequest, preparedReader, rowsByIds, type DbOrTx } from '@church/common';
import { donations, eventLogs, fundDonations, funds, webhookEvents } from '../db/schema';
import { amountOf, centsText } from '../domain/money';

export type DonationRow = typeof donations.$inferSelect;
export type Allocation = { id: string; fundId: string; fundName: string | null; amount: number };

export interface NewDonation {
  /** the new row's id (a random one when absent) */
  id?: string;
  churchId: string;
  amountCents: number;
  currency: string;
  personId?: string | null;
  batchId?: string | null;
  method?: string | null;
  methodDetails?: string | null;
  notes?: string | null;
  status: 'complete' | 'pending' | 'failed';
  transactionId?: string | null;
  provider?: string | null;
  feeCents?: number;
  subscriptionId?: string | null;
  email?: string | null;
  date?: Date;
  /** allocations in cents */
  funds: Array<{ fundId: string; cents: number }>;
}

/** A named parameter of a prepared statement, cast to its type (arrays are one bind value each). */
const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;
const donationColumns = getTableColumns(donations);

// The webhook job's and the charge's write, rendered once (drizzle's query building costs more CPU per call
// than PostgreSQL spends on it: see `prepared` in @church/common), and one statement: the donation, its
// allocations and (for a webhook event) the event-log entry go together, or nothing when the transaction id
// is known already. On this stack a round trip to PostgreSQL costs more CPU than the rows it carries.
const donationValues = [
  sql`${p('id', 'uuid')}, ${p('churchId', 'uuid')}, ${p('amount', 'numeric')}, ${p('currency', 'text')}, ${p('personId', 'uuid')}, ${p('batchId', 'uuid')}, ${p('method', 'text')},`,
  sql`${p('methodDetails', 'text')}, ${p('notes', 'text')}, ${p('status', 'text')}, ${p('transactionId', 'text')}, ${p('provider', 'text')}, ${p('fee', 'numeric')}, ${p('subscriptionId', 'uuid')},`,
  sql`${p('email', 'text')}, ${p('date', 'timestamptz')}`,
];
const insertInto = sql`insert into ${donations} (id, church_id, amount, currency, person_id, batch_id, method, method_details, notes, status, transaction_id, provider, fee, subscription_id, email, donation_date)`;
/** The allocations of `d` (the inserted donation, if any) and its event-log entry when `logId` is given. */
const allocationsAndLog = [
  sql`a as (insert into ${fundDonations} (id, church_id, donation_id, fund_id, amount)`,
  sql`select x.id, d.church_id, d.id, x.fund_id, x.amount from d cross join unnest(${p('allocationIds', 'uuid[]')}, ${p('funds', 'uuid[]')}, ${p('amounts', 'numeric[]')}) as x(id, fund_id, amount)),`,
  sql`e as (insert into ${eventLogs} (id, church_id, customer_id, provider, provider_id, event_type, status, message, resolved)`,
  sql`select ${p('logId', 'uuid')}, d.church_id, ${p('logCustomerId', 'text')}, ${p('logProvider', 'text')}, ${p('logProviderId', 'text')}, ${p('logEventType', 'text')}, 'processed', ${p('logMessage', 'text')}, true`,
  sql`from d where ${p('logId', 'uuid')} is not null)`,
];
const insertDonation = preparedReader(donationColumns, () =>
  sql.join([sql`with d as (`, insertInto, sql`values (`, ...donationValues, sql`) on conflict do nothing returning *),`, ...allocationsAndLog, sql`select * from d`], sql` `),
);
/**
 * A webhook event's new payment, applied once in one statement (autocommit: its own transaction): the event's
 * row is locked and must not be processed yet, then the donation, its allocations, the event-log entry and the
 * event marked processed. Nothing is written when the event was processed already (`locked` 0) or the payment
 * is known (`recorded` 0: its transaction id exists; the caller applies the event to it).
 */
const recordEventPayment = preparedReader({ locked: sql<number>`locked`.as('locked'), recorded: sql<number>`recorded`.as('recorded') }, () =>
  sql.join(
    [
      sql`with ev as (select id from ${webhookEvents} where id = ${p('eventRow', 'uuid')} and processed_at is null for update),`,
      sql`d as (`,
      insertInto,
      sql`select`,
      ...donationValues,
      sql`from ev on conflict do nothing returning *),`,
      ...allocationsAndLog,
      sql`, u as (update ${webhookEvents} w set processed_at = now(), outcome = ${p('logMessage', 'text')} from d where w.id = ${p('eventRow', 'uuid')} returning w.id)`,
      sql`select (select count(*) from ev)::int as locked, (select count(*) from u)::int as recorded`,
    ],
    sql` `,
  ),
);
const readByTransaction = preparedReader(donationColumns, (qb) =>
  qb
    .select(donationColumns)
    .from(donations)
    .where(and(eq(donations.churchId, p('churchId', 'uuid')), eq(donations.transactionId, p('transactionId', 'text'))))
    .limit(1),
);

/** A processed webhook event's log entry (`processed`), written with the donation it recorded. */
export interface EventLogEntry {
  customerId: string | null;
  provider: string;
  providerId: string;
  eventType: string;
  message: string;
}

/** The bind values of a donation's write (`insertDonation`, `recordEventPayment`). */
function donationParams(d: NewDonation, id: string, log?: EventLogEntry) {
  return {
    id,
    churchId: d.churchId,
    amount: centsText(d.amountCents),
    currency: d.currency,
    personId: d.personId ?? null,
    batchId: d.batchId ?? null,
    method: d.method ?? null,
    methodDetails: d.methodDetails ?? null,
    notes: d.notes ?? null,
    status: d.status,
    transactionId: d.transactionId ?? null,
    provider: d.provider ?? null,
    fee: centsText(d.feeCents ?? 0),
    subscriptionId: d.subscriptionId ?? null,
    email: d.email ?? null,
    date: (d.date ?? new Date()).toISOString(),
    allocationIds: d.funds.map(() => randomUUID()),
    funds: d.funds.map((f) => f.fundId),
    amounts: d.funds.map((f) => centsText(f.cents)),
    logId: log ? randomUUID() : null,
    logCustomerId: log?.customerId ?? null,
    logProvider: log?.provider ?? null,
    logProviderId: log?.providerId ?? null,
    logEventType: log?.eventType ?? null,
    logMessage: log?.message ?? null,
  };
}

/**
 * Records a donation with its allocations, in the caller's transaction. A gateway donation is recognised by
 * its transaction id (unique per church): when one exists already the existing row is answered and nothing is
 * written (`created: false`), so a webhook, a retried charge and a replay never add a second. `log`: the
 * event-log entry of the webhook event recording it, written with it (not when the donation was known).
 */
export async function recordDonation(tx: DbOrTx, d: NewDonation, log?: EventLogEntry): Promise<{ donation: DonationRow; created: boolean }> {
  const [inserted] = await insertDonation(tx, donationParams(d, d.id ?? randomUUID(), log));
  if (!inserted) {
    const existing = await donationByTransaction(tx, d.churchId, d.transactionId ?? '');
    if (!existing) throw new Error('donation conflict without a transaction id');
    return { donation: existing, created: false };
  }
  return { donation: inserted as DonationRow, created: true };
}

/**
 * Records the new payment of webhook event row `eventRow` with its allocations and event-log entry, and marks the
 * event processed, in one statement: `recorded` when it did; `done` when the event was processed before;
 * `known` when the payment's transaction id exists already (nothing written: apply the event to that donation).
 */
export async function recordPaymentOfEvent(db: DbOrTx, eventRow: string, d: NewDonation & { id: string }, log: EventLogEntry): Promise<'recorded' | 'done' | 'known'> {
  const [row] = await recordEventPayment(db, { eventRow, ...donationParams(d, d.id, log) });
  if (!row?.locked) return 'done';
  return row.recorded ? 'recorded' : 'known';
}

const readWithAllocations = preparedReader(
  { ...donationColumns, allocations: sql<Array<{ fundName: string | null; amount: string }>>`allocations`.as('allocations') },
  () =>
    sql.join(
      [
        sql`select d.*, coalesce((select json_agg(json_build_object('fundName', f.name, 'amount', fd.amount::text))`,
        sql`from ${fundDonations} fd left join ${funds} f on f.church_id = fd.church_id and f.id = fd.fund_id`,
        sql`where fd.church_id = d.church_id and fd.donation_id = d.id), '[]'::json) as allocations`,
        sql`from ${donations} d where d.church_id = ${p('churchId', 'uuid')} and d.id = ${p('id', 'uuid')}`,
      ],
      sql` `,
    ),
);

/** A donation with its allocations' fund names and amounts (decimal text), in one read: what a receipt shows. */
export async function donationWithAllocations(db: DbOrTx, churchId: string, id: string) {
  const [row] = await readWithAllocations(db, { churchId, id });
  return row as (DonationRow & { allocations: Array<{ fundName: string | null; amount: string }> }) | undefined;
}

export async function donationByTransaction(db: DbOrTx, churchId: string, transactionId: string): Promise<DonationRow | undefined> {
  const [row] = await readByTransaction(db, { churchId, transactionId });
  return row as DonationRow | undefined;
}

/** Checks that every fund id is a live fund of the church; 400 naming the first unknown one. */
export async function checkFunds(db: DbOrTx, churchId: string, ids: string[], param: (i: number) => string): Promise<Map<string, typeof funds.$inferSelect>> {
  const rows = await rowsByIds(db, funds, churchId, [...new Set(ids)]);
  const known = new Map(rows.map((r) => [r.id as string, r as typeof funds.$inferSelect]));
  ids.forEach((id, i) => {
    if (!known.has(id)) throw badRequest(param(i), 'is not a fund of this church');
  });
  return known;
}

const readAllocations = preparedReader(
  { id: fundDonations.id, donationId: fundDonations.donationId, fundId: fundDonations.fundId, fundName: sql<string | null>`f.name`.as('fund_name'), amount: fundDonations.amount },
  () =>
    sql.join(
      [
        sql`select fd.id, fd.donation_id, fd.fund_id, f.name as fund_name, fd.amount`,
        sql`from ${fundDonations} fd left join ${funds} f on f.church_id = fd.church_id and f.id = fd.fund_id`,
        sql`where fd.church_id = ${p('churchId', 'uuid')} and fd.donation_id = any(${p('ids', 'uuid[]')}) order by fd.donation_id`,
      ],
      sql` `,
    ),
);

/** Allocations of donations with fund names, grouped by donation id. */
export async function allocationsOf(db: DbOrTx, churchId: string, donationIds: string[]) {
  const out = new Map<string, Allocation[]>();
  if (!donationIds.length) return out;
  for (const r of await readAllocations(db, { churchId, ids: donationIds })) {
    const list = out.get(r.donationId) ?? [];
    list.push({ id: r.id, fundId: r.fundId, fundName: r.fundName, amount: amountOf(r.amount) });
    out.set(r.donationId, list);
  }
  return out;
}

/** What a donation answers: every column but the church, the guest's email and the timestamps. */
export type DonationFields = Omit<DonationRow, 'churchId' | 'email' | 'createdAt' | 'updatedAt'>;

/**
 * A church's donations (of a person, of a batch) with their allocations, newest first: the answer's JSON text,
 * written by PostgreSQL in one prepared statement (the filter's index, then one allocation lookup of
 * `fund_donations_church_donation_idx` per donation). Node neither decodes the rows nor serializes them: a
 * person's history is dozens of gifts. The fields are `donationItem`'s, in its order (the `Donation` schema's);
 * dates as `toISOString` writes them; money as JSON numbers written from the numeric (decimal text throughout).
 */
const listText = (filter: SQL) =>
  preparedReader({ body: sql<string>`body`.as('body') }, () =>
    sql.join(
      [
        sql`select coalesce(json_agg(json_build_object(`,
        sql`'id', d.id, 'batchId', d.batch_id, 'personId', d.person_id,`,
        sql`'donationDate', to_char(d.donation_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),`,
        sql`'amount', d.amount, 'currency', d.currency, 'method', d.method, 'methodDetails', d.method_details, 'notes', d.notes,`,
        sql`'status', d.status, 'transactionId', d.transaction_id, 'provider', d.provider, 'fee', d.fee, 'refundedAmount', d.refunded_amount,`,
        sql`'subscriptionId', d.subscription_id, 'funds', coalesce((`,
        sql`select json_agg(json_build_object('id', fd.id, 'fundId', fd.fund_id, 'fundName', f.name, 'amount', fd.amount))`,
        sql`from ${fundDonations} fd left join ${funds} f on f.church_id = fd.church_id and f.id = fd.fund_id`,
        sql`where fd.church_id = d.church_id and fd.donation_id = d.id), '[]'::json)`,
        sql`) order by d.donation_date desc, d.id), '[]'::json)::text as body`,
        sql`from ${donations} d where d.church_id = ${p('churchId', 'uuid')} and`,
        filter,
      ],
      sql` `,
    ),
  );
const listReaders = {
  all: listText(sql`true`),
  person: listText(sql`d.person_id = ${p('personId', 'uuid')}`),
  batch: listText(sql`d.batch_id = ${p('batchId', 'uuid')}`),
  both: listText(sql`d.batch_id = ${p('batchId', 'uuid')} and d.person_id = ${p('personId', 'uuid')}`),
};

/** The JSON text of a church's donations (of a person, of a batch) with their allocations: see `listText`. */
export async function listDonations(db: DbOrTx, churchId: string, filter: { personId?: string; batchId?: string }): Promise<string> {
  const read = filter.personId ? (filter.batchId ? listReaders.both : listReaders.person) : filter.batchId ? listReaders.batch : listReaders.all;
  const [row] = await read(db, { churchId, personId: filter.personId, batchId: filter.batchId });
  return row?.body ?? '[]';
}

/** A donation row as the API answers it. */
export function donationItem(row: DonationFields, allocations?: Allocation[]) {
  return {
    id: row.id,
    batchId: row.batchId,
    personId: row.personId,
    donationDate: row.donationDate,
    amount: amountOf(row.amount),
    currency: row.currency,
    method: row.method,
    methodDetails: row.methodDetails,
    notes: row.notes,
    status: row.status,
    transactionId: row.transactionId,
    provider: row.provider,
    fee: amountOf(row.fee),
    refundedAmount: amountOf(row.refundedAmount),
    subscriptionId: row.subscriptionId,
    ...(allocations ? { funds: allocations } : {}),
  };
}

/** Total and count of donations per batch. */
export async function batchTotals(db: DbOrTx, churchId: string, batchIds: string[]) {
  const out = new Map<string, { count: number; total: number }>();
  if (!batchIds.length) return out;
  const rows = await db
    .select({ batchId: donations.batchId, count: sql<number>`count(*)::int`, total: sql<string>`coalesce(sum(${donations.amount}), 0)::text` })
    .from(donations)
    .where(and(eq(donations.churchId, churchId), inArray(donations.batchId, batchIds)))
    .groupBy(donations.batchId);
  for (const r of rows) out.set(r.batchId!, { count: r.count, total: amountOf(r.total) });
  return out;
}
