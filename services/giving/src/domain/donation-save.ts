import type { z } from 'zod';
import { badRequest, notFound, reportChanges, type Actor, type Db } from '@church/common';
import { knownPeople } from '../clients/membership';
import type { GivingDeps } from '../deps';
import { receiptJob } from '../jobs/contracts';
import { checkFunds, type DonationRow } from '../repos/donations';
import { replaceAllocations } from '../repos/fund-donations';
import { donationsByIds, knownBatches, lockedDonations, writeDonation, type DonationValues } from '../repos/manual-donations';
import type { DonationSave } from '../schemas';
import { assertAllocationsFit } from './allocations';
import { centsText, toCents } from '../lib/money';
import type { ItemParam } from '../lib/params';

type Item = z.output<typeof DonationSave>;
/** What saving donations uses. */
export type DonationSaveDeps = Pick<GivingDeps, 'db' | 'internal' | 'queue' | 'config' | 'module'>;

/** A donation change as the audit log and the church's webhooks see it (`donation.created` / `donation.updated`). */
export const donationChange = (churchId: string, before: DonationRow | undefined, after: DonationRow) => ({
  churchId,
  entityType: 'donation',
  entityId: after.id,
  action: before ? 'updated' : 'created',
  event: before ? 'donation.updated' : 'donation.created',
  before,
  after,
  data: { ...after, amount: Number(after.amount), fee: Number(after.fee), refundedAmount: Number(after.refundedAmount), email: undefined },
});

const valuesOf = (item: Item): DonationValues => ({
  ...(item.batchId !== undefined ? { batchId: item.batchId ?? null } : {}),
  ...(item.personId !== undefined ? { personId: item.personId ?? null } : {}),
  ...(item.donationDate ? { donationDate: item.donationDate } : {}),
  ...(item.amount !== undefined ? { amount: centsText(toCents(item.amount)) } : {}),
  ...(item.currency ? { currency: item.currency } : {}),
  ...(item.method !== undefined ? { method: item.method ?? null } : {}),
  ...(item.methodDetails !== undefined ? { methodDetails: item.methodDetails ?? null } : {}),
  ...(item.notes !== undefined ? { notes: item.notes ?? null } : {}),
  ...(item.status ? { status: item.status } : {}),
  ...(item.transactionId !== undefined ? { transactionId: item.transactionId || null } : {}),
});

/**
 * Checks a batch of donations entered by hand before anything is written: amounts of new ones, and that the
 * batches, funds and people they name are the church's own (people asked of membership, only those a save
 * sets: an unchanged person of an older gift is not asked again).
 */
async function checkReferences(deps: DonationSaveDeps, db: Db, churchId: string, items: Item[], at: ItemParam): Promise<void> {
  items.forEach((item, i) => {
    if (!item.id && item.amount === undefined) throw badRequest(at(i, 'amount'), 'is required');
  });
  const batches = await knownBatches(db, churchId, items.map((i) => i.batchId).filter((v): v is string => !!v));
  items.forEach((item, i) => {
    if (item.batchId && !batches.has(item.batchId)) throw badRequest(at(i, 'batchId'), 'is not a batch of this church');
  });
  for (const [i, item] of items.entries()) {
    if (item.funds) await checkFunds(db, churchId, item.funds.map((f) => f.fundId), (j) => at(i, `funds[${j}].fundId`));
  }
  const stored = await donationsByIds(db, churchId, items.map((i) => i.id).filter((v): v is string => !!v));
  const named = items.map((item) => (item.personId && item.personId.toLowerCase() !== stored.get(item.id ?? '')?.personId?.toLowerCase() ? item.personId : null));
  const asked = named.filter((v): v is string => !!v);
  if (!asked.length) return;
  const people = await knownPeople(deps.internal, churchId, asked);
  named.forEach((personId, i) => {
    if (personId && !people.has(personId.toLowerCase())) throw badRequest(at(i, 'personId'), 'is not a person of this church');
  });
}

/**
 * Saves donations entered by hand, in one transaction: each inserted or updated, its allocations replaced when
 * the item carries `funds`, the allocations held to the amount, the changes reported, and the receipts of gifts
 * that became complete enqueued with the change (a little later, so allocations posted right after the donation,
 * the usual two-call entry, are on them). Answers the saved rows in order.
 */
export async function saveDonations(deps: DonationSaveDeps, actor: Actor, body: Item[], at: ItemParam): Promise<DonationRow[]> {
  const churchId = actor.churchId;
  // Ids compare as PostgreSQL writes them.
  const items = body.map((i) => ({ ...i, id: i.id?.toLowerCase(), funds: i.funds?.map((f) => ({ ...f, id: f.id?.toLowerCase() })) }));
  const db = deps.db;
  await checkReferences(deps, db, churchId, items, at);
  return db.transaction(async (tx) => {
    const before = await lockedDonations(tx, churchId, items.map((i) => i.id).filter((v): v is string => !!v));
    const out: DonationRow[] = [];
    const changes = [];
    const receipts: string[] = [];
    for (const item of items) {
      const was = item.id ? before.get(item.id) : undefined;
      if (item.id && !was) throw notFound('Donation');
      const row = await writeDonation(tx, churchId, item.id, valuesOf(item));
      if (!row) throw notFound('Donation');
      // A gift entered as pending (a check not yet cleared) is receipted when it is confirmed.
      if (row.status === 'complete' && (!was || was.status === 'pending')) receipts.push(row.id);
      changes.push(donationChange(churchId, was, row));
      if (item.funds) {
        const allocations = await replaceAllocations(tx, churchId, row.id, item.funds.map((f) => ({ id: f.id, fundId: f.fundId, cents: toCents(f.amount) })));
        for (const a of allocations) {
          const r = (a.after ?? a.before)!;
          changes.push({ churchId, entityType: 'fundDonation', entityId: r.id, action: !a.before ? 'created' : a.after ? 'updated' : 'destroyed', before: a.before, after: a.after });
        }
      }
      out.push(row);
    }
    // An amount lowered below allocations that stay is refused: the request carries the new ones in `funds`.
    await assertAllocationsFit(
      tx,
      churchId,
      out.map((r) => r.id),
      (donationId) => {
        const i = out.findIndex((r) => r.id === donationId);
        return at(i, items[i]?.funds ? 'funds' : 'amount');
      },
    );
    await reportChanges(deps, changes, { req: actor, tx });
    for (const donationId of receipts) await deps.queue.enqueue(receiptJob, { churchId, donationId }, { jobId: `receipt-${donationId}`, delayMs: deps.config.RECEIPT_DELAY_MS, tx });
    return out;
  });
}
