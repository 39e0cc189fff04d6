import { randomUUID } from 'node:crypto';
import { and, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import { badRequest, prepared, preparedReader, rowsByIds, type DbOrTx } from '@church/common';
import { donations, eventLogs, fundDonations, funds, pendingReceipts, SHORT_DONATION, webhookEvents } from '../db/schema';
import { amountOf, centsText, toCents } from '../lib/money';

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
  // person_id and gift_day as the triggers of migrations 0003 and 0005 would fill them in (they cannot see `d`)
  sql`a as (insert into ${fundDonations} (id, church_id, donation_id, fund_id, amount, person_id, gift_day)`,
  sql`select x.id, d.church_id, d.id, x.fund_id, x.amount, d.person_id, case when d.status = 'complete' then (d.donation_date at time zone 'UTC')::date end`,
  sql`from d cross join unnest(${p('allocationIds', 'uuid[]')}, ${p('funds', 'uuid[]')}, ${p('amounts', 'numeric[]')}) as x(id, fund_id, amount)),`,
  sql`e as (insert into ${eventLogs} (id, church_id, customer_id, provider, provider_id, event_type, status, message, resolved)`,
  sql`select ${p('logId', 'uuid')}, d.church_id, ${p('logCustomerId', 'text')}, ${p('logProvider', 'text')}, ${p('logProviderId', 'text')}, ${p('logEventType', 'text')}, ${p('logStatus', 'text')}, ${p('logMessage', 'text')}, true`,
  sql`from d where ${p('logId', 'uuid')} is not null)`,
];
const insertDonation = preparedReader(donationColumns, () =>
  sql.join([sql`with d as (`, insertInto, sql`values (`, ...donationValues, sql`) on conflict do nothing returning *),`, ...allocationsAndLog, sql`select * from d`], sql` `),
);
/**
 * A webhook event's new payment, applied once in one statement (autocommit: its own transaction): the event's
 * row is locked and must not be processed yet, then the donation, its allocations, the event-log entry, its
 * pending receipt when complete (`pending_receipts`) and the event marked processed. Nothing is written when the event was processed already (`locked` 0) or the payment
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
      sql`, r as (insert into ${pendingReceipts} (church_id, donation_id) select church_id, id from d where status = 'complete')`,
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
  /** `processed` unless the payment failed (`failed`: the staff app lists those as `/eventLog/type/failed`) */
  status?: 'processed' | 'failed';
}

/** The bind values of a donation's write (`insertDonation`, `recordEventPayment`). */
/** The columns of a new donation's row, as written. */
function columnsOf(d: NewDonation) {
  return {
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
  };
}

function donationParams(d: NewDonation, id: string, log?: EventLogEntry) {
  return {
    id,
    ...columnsOf(d),
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
    logStatus: log?.status ?? 'processed',
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
 * Records the new payment of webhook event row `eventRow` with its allocations, event-log entry and pending
 * receipt (when complete), and marks the event processed, in one statement: `recorded` when it did; `done` when the event was processed before;
 * `known` when the payment's transaction id exists already (nothing written: apply the event to that donation).
 */
export async function recordPaymentOfEvent(db: DbOrTx, eventRow: string, d: NewDonation & { id: string }, log: EventLogEntry): Promise<'recorded' | 'done' | 'known'> {
  const [row] = await recordEventPayment(db, { eventRow, ...donationParams(d, d.id, log) });
  if (!row?.locked) return 'done';
  return row.recorded ? 'recorded' : 'known';
}

/** What a receipt shows: a donation with its allocations' fund names and amounts (decimal text). */
export type ReceiptDonation = DonationRow & { allocations: Array<{ fundName: string | null; amount: string }> };
export const receiptReadColumns = { ...donationColumns, allocations: sql<ReceiptDonation['allocations']>`allocations`.as('allocations') };
/** The select list of `receiptReadColumns` for a donation `d`. */
export const receiptSelect = sql.join(
  [
    sql`d.*, coalesce((select json_agg(json_build_object('fundName', f.name, 'amount', fd.amount::text))`,
    sql`from ${fundDonations} fd left join ${funds} f on f.church_id = fd.church_id and f.id = fd.fund_id`,
    sql`where fd.church_id = d.church_id and fd.donation_id = d.id), '[]'::json) as allocations`,
  ],
  sql` `,
);
const readWithAllocations = preparedReader(receiptReadColumns, () =>
  sql`select ${receiptSelect} from ${donations} d where d.church_id = ${p('churchId', 'uuid')} and d.id = ${p('id', 'uuid')}`,
);

/** A donation with its allocations' fund names and amounts (decimal text), in one read: what a receipt shows. */
export async function donationWithAllocations(db: DbOrTx, churchId: string, id: string): Promise<ReceiptDonation | undefined> {
  const [row] = await readWithAllocations(db, { churchId, id });
  return row as ReceiptDonation | undefined;
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
 * A church's donations (of a batch, or all of them) with their allocations, newest first: the answer's JSON text,
 * written by PostgreSQL in one prepared statement (the filter's index, then one allocation lookup of
 * `fund_donations_church_donation_idx` per donation). Node neither decodes the rows nor serializes them. The
 * fields are `donationItem`'s, in its order (the `Donation` schema's); dates as `toISOString` writes them; money
 * as JSON numbers written from the numeric (decimal text throughout). A person's list is `personListRows`.
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
        sql`'subscriptionId', d.subscription_id, 'funds', a.funds, 'fund', a.fund`,
        sql`) order by d.donation_date desc, d.id), '[]'::json)::text as body`,
        sql`from ${donations} d cross join lateral (`,
        sql`select coalesce(json_agg(json_build_object('id', fd.id, 'fundId', fd.fund_id, 'fundName', f.name, 'amount', fd.amount)), '[]'::json) as funds,`,
        sql`json_build_object('id', case when count(fd.id) = 1 then min(fd.fund_id::text) end, 'name', string_agg(f.name, ', ' order by f.name collate "C"), 'amount', coalesce(sum(fd.amount), d.amount)) as fund`,
        sql`from ${fundDonations} fd left join ${funds} f on f.church_id = fd.church_id and f.id = fd.fund_id`,
        sql`where fd.church_id = d.church_id and fd.donation_id = d.id) a`,
        sql`where d.church_id = ${p('churchId', 'uuid')} and`,
        filter,
      ],
      sql` `,
    ),
  );

/** One row of a person's list: a gift with one of its allocations (all null when it has none), as text. */
interface PersonListRow {
  id: string;
  batch_id: string | null;
  person_id: string | null;
  donation_date: string;
  amount: string;
  currency: string;
  method: string | null;
  method_details: string | null;
  notes: string | null;
  status: string;
  transaction_id: string | null;
  provider: string | null;
  fee: string;
  refunded_amount: string;
  subscription_id: string | null;
  allocation_id: string | null;
  fund_id: string | null;
  fund_name: string | null;
  allocation_amount: string | null;
}

/**
 * A person's gifts (`and` a batch's) with their allocations, newest first, one row per allocation, read from two
 * index-only scans of a leaf page or two each however the gifts spread over the tables (with a different person
 * each request most pages are cold; a plan of a heap page per gift and two pages per allocation read far more,
 * see the bench report of issue 20):
 *  - the gifts from `donations_church_person_list_idx`, which carries every answered column, and the rare gift
 *    with long text from `donations_church_person_long_idx` and its row; each branch repeats the index's
 *    predicate (`SHORT_DONATION`) so the planner may use it;
 *  - their allocations together from `fund_donations_church_person_idx` (the donation's person is kept on the
 *    allocation), in index order (a gift's allocations as they were written, as the lookup per gift read them).
 * Every value comes as text (the date as `toISOString` writes it, money as the numeric writes it): `personListJson`
 * writes the answer from it.
 */
const personListRows = (and: SQL) => {
  const columns = sql.raw(
    'id, batch_id, person_id, donation_date, amount, currency, method, method_details, notes, status, transaction_id, provider, fee, refunded_amount, subscription_id',
  );
  const gifts = (predicate: string) =>
    sql`select ${columns} from ${donations} where church_id = ${p('churchId', 'uuid')} and person_id = ${p('personId', 'uuid')} and ${and} and ${sql.raw(predicate)}`;
  return prepared<PersonListRow>(
    sql.join(
      [
        sql`select d.id, d.batch_id, d.person_id, to_char(d.donation_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as donation_date, d.amount, d.currency,`,
        sql`d.method, d.method_details, d.notes, d.status, d.transaction_id, d.provider, d.fee, d.refunded_amount, d.subscription_id,`,
        sql`a.id as allocation_id, a.fund_id, f.name as fund_name, a.amount as allocation_amount from (`,
        gifts(SHORT_DONATION),
        sql`union all`,
        gifts(`not (${SHORT_DONATION})`),
        sql`) d left join (select fd.donation_id, fd.id, fd.fund_id, fd.amount, row_number() over () as n from ${fundDonations} fd`,
        sql`where fd.church_id = ${p('churchId', 'uuid')} and fd.person_id = ${p('personId', 'uuid')}) a on a.donation_id = d.id`,
        sql`left join ${funds} f on f.church_id = ${p('churchId', 'uuid')} and f.id = a.fund_id`,
        sql`order by d.donation_date desc, d.id, a.n`,
      ],
      sql` `,
    ),
  );
};
const personReaders = { person: personListRows(sql`true`), both: personListRows(sql`batch_id = ${p('batchId', 'uuid')}`) };

// JSON values written from the rows' text. A uuid needs no escaping; a numeric's text is a JSON number (but NaN).
const str = (v: string | null) => (v === null ? 'null' : JSON.stringify(v));
const uuid = (v: string | null) => (v === null ? 'null' : `"${v}"`);
const JSON_NUMBER = /^-?\d+(\.\d+)?$/;
const num = (v: string) => (JSON_NUMBER.test(v) ? v : JSON.stringify(v));

/**
 * The answer of `personListRows`, written here rather than by PostgreSQL: its JSON functions cost the backend
 * most of the read, this a fraction of it (the bench report of issue 20). The fields are `donationItem`'s, in its
 * order (the `Donation` schema's), and their values what `listText` writes.
 */
function personListJson(rows: PersonListRow[]): string {
  let out = '[';
  let open: string | null = null;
  let gift = { amount: '0', fundIds: [] as string[], names: [] as string[], cents: 0 };
  // `fund`: the gift's allocations in one line, as the member app's giving history shows them (`fundSummary`).
  const close = () => `],"fund":${JSON.stringify(fundSummary(gift.amount, gift.fundIds, gift.names, gift.cents))}}`;
  for (const r of rows) {
    if (r.id !== open) {
      if (open !== null) out += `${close()},`;
      open = r.id;
      gift = { amount: r.amount, fundIds: [], names: [], cents: 0 };
      out += `{"id":"${r.id}","batchId":${uuid(r.batch_id)},"personId":${uuid(r.person_id)},"donationDate":"${r.donation_date}","amount":${num(r.amount)},`;
      out += `"currency":${str(r.currency)},"method":${str(r.method)},"methodDetails":${str(r.method_details)},"notes":${str(r.notes)},"status":${str(r.status)},`;
      out += `"transactionId":${str(r.transaction_id)},"provider":${str(r.provider)},"fee":${num(r.fee)},"refundedAmount":${num(r.refunded_amount)},`;
      out += `"subscriptionId":${uuid(r.subscription_id)},"funds":[`;
    } else out += ',';
    if (r.allocation_id !== null) {
      out += `{"id":"${r.allocation_id}","fundId":${uuid(r.fund_id)},"fundName":${str(r.fund_name)},"amount":${num(r.allocation_amount!)}}`;
      gift.fundIds.push(r.fund_id!);
      if (r.fund_name !== null) gift.names.push(r.fund_name);
      gift.cents += toCents(r.allocation_amount!);
    }
  }
  return open === null ? '[]' : `${out}${close()}]`;
}

/**
 * A gift's allocations in one line (`fund`), as the member app's giving history reads a gift (`d.fund.name`,
 * `d.fund.amount`): the fund's id when there is one, the funds' names, and the allocated amount (the gift's own
 * when it has no allocations). PostgreSQL writes the same in `listText`.
 */
export function fundSummary(amount: string | number, fundIds: string[], names: string[], cents: number) {
  return { id: fundIds.length === 1 ? fundIds[0]! : null, name: names.length ? [...names].sort().join(', ') : null, amount: fundIds.length ? amountOf(centsText(cents)) : amountOf(amount) };
}

const listReaders = { all: listText(sql`true`), batch: listText(sql`d.batch_id = ${p('batchId', 'uuid')}`) };

/** The JSON text of a church's donations (of a person, of a batch) with their allocations: see `listText` and `personListRows`. */
export async function listDonations(db: DbOrTx, churchId: string, filter: { personId?: string; batchId?: string }): Promise<string> {
  if (filter.personId) {
    const read = filter.batchId ? personReaders.both : personReaders.person;
    return personListJson(await read(db, { churchId, personId: filter.personId, batchId: filter.batchId }));
  }
  const [row] = await (filter.batchId ? listReaders.batch : listReaders.all)(db, { churchId, batchId: filter.batchId });
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
    ...(allocations
      ? {
          funds: allocations,
          fund: fundSummary(
            row.amount,
            allocations.map((a) => a.fundId),
            allocations.map((a) => a.fundName).filter((n): n is string => n !== null),
            allocations.reduce((sum, a) => sum + toCents(a.amount), 0),
          ),
        }
      : {}),
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

/** Moves a gateway donation to another status; answers it as it was and as it is. */
export async function setDonationStatus(tx: DbOrTx, donation: DonationRow, status: string): Promise<{ before: DonationRow; after: DonationRow }> {
  const [after] = await tx.update(donations).set({ status, updatedAt: new Date() }).where(and(eq(donations.churchId, donation.churchId), eq(donations.id, donation.id))).returning();
  return { before: donation, after: after! };
}

/** Records a refund of a donation (capped at its amount; `refunded` when it is all); answers it as it was and as it is. */
export async function setRefund(tx: DbOrTx, donation: DonationRow, refundedCents: number): Promise<{ before: DonationRow; after: DonationRow; full: boolean }> {
  const full = refundedCents >= toCents(donation.amount);
  const [after] = await tx
    .update(donations)
    .set({ refundedAmount: centsText(Math.min(refundedCents, toCents(donation.amount))), ...(full ? { status: 'refunded' } : {}), updatedAt: new Date() })
    .where(and(eq(donations.churchId, donation.churchId), eq(donations.id, donation.id)))
    .returning();
  return { before: donation, after: after!, full };
}

/** The church's donations recorded under any of these transaction ids (a subscription period's invoices). */
export async function donationsByTransactions(db: DbOrTx, churchId: string, transactionIds: string[]): Promise<DonationRow[]> {
  if (!transactionIds.length) return [];
  return db.select().from(donations).where(and(eq(donations.churchId, churchId), inArray(donations.transactionId, transactionIds)));
}

/** The row a new gateway donation is written as (for the audit log of a payment recorded in one statement). */
export function rowOf(d: NewDonation & { id: string }): DonationRow {
  const now = new Date();
  return {
    id: d.id,
    ...columnsOf(d),
    donationDate: d.date ?? now,
    refundedAmount: '0.00',
    createdAt: now,
    updatedAt: now,
  };
}
