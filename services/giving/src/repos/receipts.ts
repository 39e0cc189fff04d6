import { sql } from 'drizzle-orm';
import { prepared, preparedReader, type DbOrTx } from '@church/common';
import { donations, pendingReceipts } from '../db/schema';
import { receiptReadColumns, receiptSelect, type ReceiptDonation } from './donations';

const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;

/** A claimed row stays claimed this long; after it, its receipt is claimed (and sent) again. */
const CLAIM_MINUTES = 10;

/**
 * Claims up to `limit` of a church's pending receipts no other worker holds (oldest first) and reads their
 * donations with the allocations' fund names, in one statement: `donation` null when it is gone.
 */
const claim = preparedReader({ claimed: sql<string>`claimed`.as('claimed'), ...receiptReadColumns }, () =>
  sql.join(
    [
      sql`with c as (update ${pendingReceipts} r set claimed_at = now() where r.church_id = ${p('churchId', 'uuid')} and r.donation_id in (`,
      sql`select donation_id from ${pendingReceipts} where church_id = ${p('churchId', 'uuid')}`,
      sql`and (claimed_at is null or claimed_at < now() - interval '${sql.raw(String(CLAIM_MINUTES))} minutes')`,
      sql`order by created_at limit ${p('limit', 'int')} for update skip locked) returning r.donation_id)`,
      sql`select c.donation_id as claimed, ${receiptSelect} from c left join ${donations} d on d.church_id = ${p('churchId', 'uuid')} and d.id = c.donation_id`,
    ],
    sql` `,
  ),
);
const settle = prepared(sql`delete from ${pendingReceipts} where church_id = ${p('churchId', 'uuid')} and donation_id = any(${p('ids', 'uuid[]')})`);
const release = prepared(sql`update ${pendingReceipts} set claimed_at = null where church_id = ${p('churchId', 'uuid')} and donation_id = any(${p('ids', 'uuid[]')})`);
const overdue = prepared<{ church_id: string }>(
  sql.join(
    [
      sql`select distinct church_id from ${pendingReceipts} where created_at < now() - interval '30 seconds'`,
      sql`and (claimed_at is null or claimed_at < now() - interval '${sql.raw(String(CLAIM_MINUTES))} minutes')`,
    ],
    sql` `,
  ),
);

/** Claims up to `limit` pending receipts of the church with their donations (see `claim`). */
export async function claimPendingReceipts(db: DbOrTx, churchId: string, limit: number): Promise<Array<{ donationId: string; donation: ReceiptDonation | null }>> {
  const rows = await claim(db, { churchId, limit });
  return rows.map((r) => ({ donationId: r.claimed, donation: r.id ? (r as unknown as ReceiptDonation) : null }));
}

/** Removes receipts that were sent (or handed to a job of their own). */
export async function settlePendingReceipts(db: DbOrTx, churchId: string, donationIds: string[]): Promise<void> {
  if (donationIds.length) await settle(db, { churchId, ids: donationIds });
}

/** Gives claimed receipts back (their batch failed before sending them): the job's retry claims them again. */
export async function releasePendingReceipts(db: DbOrTx, churchId: string, donationIds: string[]): Promise<void> {
  if (donationIds.length) await release(db, { churchId, ids: donationIds });
}

/** Churches with receipts pending for more than 30 seconds and not held by a worker. */
export async function churchesWithOverdueReceipts(db: DbOrTx): Promise<string[]> {
  return (await overdue(db, {})).map((r) => r.church_id);
}
