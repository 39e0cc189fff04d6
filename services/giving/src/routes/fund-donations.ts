import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, asc, desc, eq, gte, ilike, lt, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { badRequest, batchOf, deleteRow, Id, IdParams, IsoDate, itemParam, notFound, type ZodTypeProvider } from '@church/common';
import { donations, fundDonations, funds } from '../db/schema';
import { amountOf, centsText, toCents } from '../domain/money';
import { checkFunds } from '../repos/donations';
import { dayRange } from '../repos/summary';
import { FundDonation, FundDonationSave } from '../schemas';

const ListQuery = z.object({
  donationId: Id.optional(),
  personId: Id.optional(),
  fundId: Id.optional(),
  fundName: z.string().trim().max(255).optional(),
  startDate: IsoDate.optional(),
  endDate: IsoDate.optional(),
});

/** `/giving/funddonations`: allocations of donations to funds, with the fund's name and the donation's person and date. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  const select = (where: SQL[]) =>
    app.db
      .select({
        id: fundDonations.id,
        donationId: fundDonations.donationId,
        fundId: fundDonations.fundId,
        amount: fundDonations.amount,
        fundName: funds.name,
        personId: donations.personId,
        donationDate: donations.donationDate,
      })
      .from(fundDonations)
      .leftJoin(donations, and(eq(donations.churchId, fundDonations.churchId), eq(donations.id, fundDonations.donationId)))
      .leftJoin(funds, and(eq(funds.churchId, fundDonations.churchId), eq(funds.id, fundDonations.fundId)))
      .where(and(...where))
      .orderBy(desc(donations.donationDate), asc(fundDonations.id));
  const item = (r: Awaited<ReturnType<typeof select>>[number]) => ({ ...r, amount: amountOf(r.amount) });

  app.get('/giving/funddonations', { config: { access: requires('Donations.View') }, schema: { querystring: ListQuery, response: { 200: z.array(FundDonation) } } }, async (req) => {
    const q = req.query;
    const where: SQL[] = [eq(fundDonations.churchId, req.auth.churchId)];
    if (q.donationId) where.push(eq(fundDonations.donationId, q.donationId));
    if (q.personId) where.push(eq(donations.personId, q.personId));
    if (q.fundId) where.push(eq(fundDonations.fundId, q.fundId));
    if (q.fundName) where.push(ilike(funds.name, q.fundName.replace(/[\\%_]/g, (c) => `\\${c}`)));
    const { from, to } = dayRange(q.startDate, q.endDate);
    if (from) where.push(gte(donations.donationDate, from));
    if (to) where.push(lt(donations.donationDate, to));
    return (await select(where)).map(item);
  });

  app.get('/giving/funddonations/my', { config: { access: anyUser }, schema: { response: { 200: z.array(FundDonation) } } }, async (req) => {
    if (!req.auth.personId) return [];
    return (await select([eq(fundDonations.churchId, req.auth.churchId), eq(donations.personId, req.auth.personId)])).map(item);
  });

  app.get('/giving/funddonations/:id', { config: { access: requires('Donations.View') }, schema: { params: IdParams, response: { 200: FundDonation } } }, async (req) => {
    const [row] = await select([eq(fundDonations.churchId, req.auth.churchId), eq(fundDonations.id, req.params.id)]);
    if (!row) throw notFound('Fund donation');
    return item(row);
  });

  app.post('/giving/funddonations', { config: { access: requires('Donations.Edit') }, schema: { body: batchOf(FundDonationSave), response: { 200: z.array(FundDonation) } } }, async (req) => {
    const churchId = req.auth.churchId;
    const items = req.body;
    items.forEach((it, i) => {
      if (!it.id) {
        if (!it.donationId) throw badRequest(itemParam(req, i, 'donationId'), 'is required');
        if (!it.fundId) throw badRequest(itemParam(req, i, 'fundId'), 'is required');
        if (it.amount === undefined) throw badRequest(itemParam(req, i, 'amount'), 'is required');
      }
    });
    const fundIds = items.map((it) => it.fundId).filter((v): v is string => !!v);
    await checkFunds(app.db, churchId, fundIds, () => itemParam(req, items.findIndex((it) => it.fundId && fundIds.includes(it.fundId)), 'fundId'));
    const ids = await app.db.transaction(async (tx) => {
      const out: string[] = [];
      for (const [i, it] of items.entries()) {
        if (it.donationId) {
          const [d] = await tx.select({ id: donations.id }).from(donations).where(and(eq(donations.churchId, churchId), eq(donations.id, it.donationId))).limit(1);
          if (!d) throw badRequest(itemParam(req, i, 'donationId'), 'is not a donation of this church');
        }
        const values = {
          ...(it.donationId ? { donationId: it.donationId } : {}),
          ...(it.fundId ? { fundId: it.fundId } : {}),
          ...(it.amount !== undefined ? { amount: centsText(toCents(it.amount)) } : {}),
        };
        if (it.id) {
          const [row] = await tx
            .update(fundDonations)
            .set({ ...values, updatedAt: new Date() })
            .where(and(eq(fundDonations.churchId, churchId), eq(fundDonations.id, it.id)))
            .returning({ id: fundDonations.id });
          if (!row) throw notFound('Fund donation');
          out.push(row.id);
        } else {
          const id = randomUUID();
          await tx.insert(fundDonations).values({ id, churchId, donationId: it.donationId!, fundId: it.fundId!, amount: values.amount! });
          out.push(id);
        }
      }
      return out;
    });
    const rows = await Promise.all(ids.map(async (id) => (await select([eq(fundDonations.churchId, churchId), eq(fundDonations.id, id)]))[0]!));
    return rows.map(item);
  });

  app.delete('/giving/funddonations/:id', { config: { access: requires('Donations.Edit') }, schema: { params: IdParams } }, async (req) => {
    await deleteRow(app.db, fundDonations, req.auth.churchId, req.params.id);
    return {};
  });
}
