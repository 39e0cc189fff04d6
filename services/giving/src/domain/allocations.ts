import { badRequest, type DbOrTx } from '@church/common';
import { lockDonations, overAllocated } from '../repos/fund-donations';
import { centsText, toCents } from './money';

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
