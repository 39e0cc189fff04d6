import { and, asc, eq, gte, isNotNull, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { donations, fundDonations } from '../db/schema';

/** The most people one answer names (the contract's bound). */
const MAX_DONORS = 100_000;

/**
 * The people with a complete gift in `[fromDay, toDay]` (UTC days, both included, either open), to one fund when
 * named: one index-only range either way. A fund's gifts are its allocations by gift day
 * (`fund_donations_church_fund_day_idx`, whose `gift_day` is set only while the gift is complete); any gift is a
 * complete donation of a known person by its date (`donations_church_complete_date_idx`).
 */
export async function donorIds(db: DbOrTx, churchId: string, f: { fundId?: string; fromDay?: string; toDay?: string }): Promise<string[]> {
  if (f.fundId) {
    const where: SQL[] = [eq(fundDonations.churchId, churchId), eq(fundDonations.fundId, f.fundId), isNotNull(fundDonations.giftDay), isNotNull(fundDonations.personId)];
    if (f.fromDay) where.push(gte(fundDonations.giftDay, f.fromDay));
    if (f.toDay) where.push(lte(fundDonations.giftDay, f.toDay));
    const rows = await db
      .selectDistinct({ personId: fundDonations.personId })
      .from(fundDonations)
      .where(and(...where))
      .orderBy(asc(fundDonations.personId))
      .limit(MAX_DONORS);
    return rows.map((r) => r.personId!);
  }
  // the partial index's predicate, word for word, so the planner proves it
  const where: SQL[] = [eq(donations.churchId, churchId), sql`status = 'complete' and person_id is not null`];
  if (f.fromDay) where.push(gte(donations.donationDate, new Date(`${f.fromDay}T00:00:00Z`)));
  if (f.toDay) where.push(lt(donations.donationDate, new Date(Date.parse(`${f.toDay}T00:00:00Z`) + 86_400_000)));
  const rows = await db
    .selectDistinct({ personId: donations.personId })
    .from(donations)
    .where(and(...where))
    .orderBy(asc(donations.personId))
    .limit(MAX_DONORS);
  return rows.map((r) => r.personId!);
}
