import type { z } from 'zod';
import { badRequest, notFound, reportChanges, type Actor, type DbOrTx } from '@church/common';
import type { GivingDeps } from '../deps';
import { centsText, toCents } from '../lib/money';
import type { ItemParam } from '../lib/params';
import { checkFunds } from '../repos/donations';
import { allocationsById, deleteAllocation, lockDonations, overAllocated, writeAllocations } from '../repos/fund-donations';
import type { FundDonationSave } from '../schemas';

/**
 * The rule of a donation's allocations: together they never exceed its amount (they may sum below it, when the
 * donor covered the fee). Every writer of allocations or of an amount locks the donations it touches first
 * (`lockDonations`) and checks them after writing, in the same transaction: the sums checked are the ones that
 * commit, also when two writers touch one donation at once.
 */
export async function lockForAllocations(tx: DbOrTx, churchId: string, donationIds: string[]): Promise<Set<string>> {
  return lockDonations(tx, churchId, donationIds);
}

/** 400 naming the field of the first donation whose allocations now exceed its amount (the transaction rolls back). */
export async function assertAllocationsFit(tx: DbOrTx, churchId: string, donationIds: string[], param: (donationId: string) => string): Promise<void> {
  const [over] = await overAllocated(tx, churchId, donationIds);
  if (!over) return;
  throw badRequest(param(over.id), `the donation's allocations (${centsText(toCents(over.allocated))}) would exceed its amount (${centsText(toCents(over.amount))})`);
}

/**
 * `POST /funddonations`: allocations added or changed in one transaction. Every new item names its donation,
 * fund and amount; the funds are the church's (checked before the transaction); the donations whose allocations
 * change are locked, must be the church's, and are held to their amounts after the writes; each change is
 * reported. Answers the allocations' ids in input order.
 */
export async function saveAllocations(deps: Pick<GivingDeps, 'db' | 'queue' | 'module'>, actor: Actor, body: Array<z.output<typeof FundDonationSave>>, at: ItemParam): Promise<string[]> {
  const churchId = actor.churchId;
  // Ids compare as PostgreSQL writes them.
  const items = body.map((it) => ({ ...it, id: it.id?.toLowerCase(), donationId: it.donationId?.toLowerCase(), fundId: it.fundId?.toLowerCase() }));
  items.forEach((it, i) => {
    if (it.id) return;
    if (!it.donationId) throw badRequest(at(i, 'donationId'), 'is required');
    if (!it.fundId) throw badRequest(at(i, 'fundId'), 'is required');
    if (it.amount === undefined) throw badRequest(at(i, 'amount'), 'is required');
  });
  const fundIds = items.map((it) => it.fundId).filter((v): v is string => !!v);
  await checkFunds(deps.db, churchId, fundIds, (j) => at(items.findIndex((it) => it.fundId === fundIds[j]), 'fundId'));
  return deps.db.transaction(async (tx) => {
    const before = await allocationsById(tx, churchId, items.map((it) => it.id).filter((v): v is string => !!v));
    items.forEach((it) => {
      if (it.id && !before.has(it.id)) throw notFound('Fund donation');
    });
    // The donations whose allocations change, each locked until commit, then held to their amounts.
    const donationOf = (it: (typeof items)[number]) => it.donationId ?? before.get(it.id ?? '')?.donationId;
    const touched = items.map(donationOf).filter((v): v is string => !!v);
    const known = await lockForAllocations(tx, churchId, touched);
    items.forEach((it, i) => {
      if (it.donationId && !known.has(it.donationId)) throw badRequest(at(i, 'donationId'), 'is not a donation of this church');
    });
    const written = await writeAllocations(
      tx,
      churchId,
      items.map((it) => ({ id: it.id, donationId: it.donationId, fundId: it.fundId, cents: it.amount === undefined ? undefined : toCents(it.amount) })),
    );
    await assertAllocationsFit(tx, churchId, touched, (donationId) => at(Math.max(0, items.findIndex((it) => donationOf(it) === donationId)), 'amount'));
    await reportChanges(
      deps,
      written.map((after, i) => ({ churchId, entityType: 'fundDonation', entityId: after!.id, action: items[i]!.id ? 'updated' : 'created', before: before.get(items[i]!.id ?? ''), after })),
      { req: actor, tx },
    );
    return written.map((row) => row!.id);
  });
}

/** `DELETE /funddonations/:id`: one allocation of the church removed and reported; 404 when it has none with the id. */
export async function removeAllocation(deps: Pick<GivingDeps, 'db' | 'queue' | 'module'>, actor: Actor, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const gone = await deleteAllocation(tx, actor.churchId, id);
    if (!gone) throw notFound('Fund donation');
    await reportChanges(deps, [{ churchId: actor.churchId, entityType: 'fundDonation', entityId: gone.id, action: 'destroyed', before: gone }], { req: actor, tx });
  });
}
