import { notFound, reportChanges, type Actor } from '@church/common';
import { peopleNames } from '../clients/membership';
import type { GivingDeps } from '../deps';
import { dayRange } from '../lib/days';
import { amountOf } from '../lib/money';
import { deleteAllocationsOf } from '../repos/fund-donations';
import { deleteDonations } from '../repos/manual-donations';
import { donorRows } from '../repos/summary';

/**
 * The summary per donor over the range (`type=person`, the staff app's statement export): one row per person
 * (and one `Anonymous` row for gifts without a person) with `totalAmount`, `count` (their donations) and `funds`
 * (`[{<fund name>: amount}]`, as the app spreads them into columns), from complete donations to tax-deductible
 * funds (`donorRows`), with the names from membership (one call per 1000 people).
 */
export async function donorSummary(deps: Pick<GivingDeps, 'db' | 'internal'>, churchId: string, opts: { startDate?: Date; endDate?: Date }) {
  const { from, to } = dayRange(opts.startDate, opts.endDate);
  const rows = await donorRows(deps.db, churchId, from, to);
  const ids = [...new Set(rows.map((r) => r.person_id).filter((v): v is string => !!v))];
  const names = await peopleNames(deps.internal, churchId, ids);
  const out: Array<{ totalAmount: number; count: number; personId: string | null; displayName: string | null; funds: Array<Record<string, number>> }> = [];
  for (const r of rows) {
    // A person's own row (fund null, from the grouping set without the fund) comes before their funds' rows.
    if (r.fund === null) out.push({ totalAmount: amountOf(r.total), count: Number(r.count), personId: r.person_id, displayName: r.person_id ? (names.get(r.person_id) ?? null) : 'Anonymous', funds: [] });
    else out.at(-1)!.funds.push(Object.fromEntries([[r.fund, amountOf(r.total)]]));
  }
  return out;
}

/** `DELETE /donations/:id`: the donation and its allocations removed and reported in one transaction; 404 when not the church's. */
export async function deleteDonation(deps: Pick<GivingDeps, 'db' | 'queue' | 'module'>, actor: Actor, id: string): Promise<void> {
  const churchId = actor.churchId;
  await deps.db.transaction(async (tx) => {
    const [gone] = await deleteDonations(tx, churchId, [id]);
    if (!gone) throw notFound('Donation');
    const allocations = await deleteAllocationsOf(tx, churchId, [gone.id]);
    await reportChanges(
      deps,
      [
        { churchId, entityType: 'donation', entityId: gone.id, action: 'destroyed', before: gone },
        ...allocations.map((a) => ({ churchId, entityType: 'fundDonation', entityId: a.id, action: 'destroyed', before: a })),
      ],
      { req: actor, tx },
    );
  });
}
