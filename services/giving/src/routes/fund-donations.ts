import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { badRequest, batchOf, Empty, Id, IdParams, IsoDate, itemParam, notFound, reportChanges, type ZodTypeProvider } from '@church/common';
import { assertAllocationsFit, lockForAllocations } from '../domain/allocations';
import { toCents } from '../domain/money';
import { checkFunds } from '../repos/donations';
import { allocationsById, deleteAllocation, fundDonationById, fundDonationsJson, listFundDonations, writeAllocations } from '../repos/fund-donations';
import { FundDonation, FundDonationSave } from '../schemas';

const base = '/giving/funddonations';
const ListQuery = z.object({
  donationId: Id.optional(),
  personId: Id.optional(),
  fundId: Id.optional(),
  fundName: z.string().trim().max(255).optional(),
  startDate: IsoDate.optional(),
  endDate: IsoDate.optional(),
});

/**
 * A list's JSON text as `fundDonationsJson` reads it: one page sent whole, a longer list streamed page by page
 * (the response schema documents the items; the text is written in its shape, see the repository).
 */
async function sendList(reply: FastifyReply, list: Awaited<ReturnType<typeof fundDonationsJson>>) {
  reply.type('application/json; charset=utf-8');
  if ('whole' in list) return reply.send(list.whole);
  async function* body() {
    yield (list as { first: string }).first;
    yield* (list as { rest: AsyncGenerator<string> }).rest;
  }
  return reply.send(Readable.from(body()));
}

/** `/giving/funddonations`: allocations of donations to funds, with the fund's name and the donation they belong to. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(base, { config: { access: requires('Donations.View') }, schema: { querystring: ListQuery, response: { 200: z.array(FundDonation) } } }, async (req, reply) =>
    sendList(reply, await fundDonationsJson(app.db, req.auth.churchId, req.query)),
  );

  app.get(`${base}/my`, { config: { access: anyUser }, schema: { response: { 200: z.array(FundDonation) } } }, async (req, reply) =>
    req.auth.personId ? sendList(reply, await fundDonationsJson(app.db, req.auth.churchId, { personId: req.auth.personId })) : [],
  );

  app.get(`${base}/:id`, { config: { access: requires('Donations.View') }, schema: { params: IdParams, response: { 200: FundDonation } } }, async (req) => {
    const found = await fundDonationById(app.db, req.auth.churchId, req.params.id);
    if (!found) throw notFound('Fund donation');
    return found;
  });

  app.post(base, { config: { access: requires('Donations.Edit') }, schema: { body: batchOf(FundDonationSave), response: { 200: z.array(FundDonation) } } }, async (req) => {
    const churchId = req.auth.churchId;
    // Ids compare as PostgreSQL writes them.
    const items = req.body.map((it) => ({ ...it, id: it.id?.toLowerCase(), donationId: it.donationId?.toLowerCase(), fundId: it.fundId?.toLowerCase() }));
    items.forEach((it, i) => {
      if (it.id) return;
      if (!it.donationId) throw badRequest(itemParam(req, i, 'donationId'), 'is required');
      if (!it.fundId) throw badRequest(itemParam(req, i, 'fundId'), 'is required');
      if (it.amount === undefined) throw badRequest(itemParam(req, i, 'amount'), 'is required');
    });
    const fundIds = items.map((it) => it.fundId).filter((v): v is string => !!v);
    await checkFunds(app.db, churchId, fundIds, (j) => itemParam(req, items.findIndex((it) => it.fundId === fundIds[j]), 'fundId'));
    const ids = await app.db.transaction(async (tx) => {
      const before = await allocationsById(tx, churchId, items.map((it) => it.id).filter((v): v is string => !!v));
      items.forEach((it) => {
        if (it.id && !before.has(it.id)) throw notFound('Fund donation');
      });
      // The donations whose allocations change, each locked until commit, then held to their amounts.
      const donationOf = (it: (typeof items)[number]) => it.donationId ?? before.get(it.id ?? '')?.donationId;
      const touched = items.map(donationOf).filter((v): v is string => !!v);
      const known = await lockForAllocations(tx, churchId, touched);
      items.forEach((it, i) => {
        if (it.donationId && !known.has(it.donationId)) throw badRequest(itemParam(req, i, 'donationId'), 'is not a donation of this church');
      });
      const written = await writeAllocations(
        tx,
        churchId,
        items.map((it) => ({ id: it.id, donationId: it.donationId, fundId: it.fundId, cents: it.amount === undefined ? undefined : toCents(it.amount) })),
      );
      await assertAllocationsFit(tx, churchId, touched, (donationId) => itemParam(req, Math.max(0, items.findIndex((it) => donationOf(it) === donationId)), 'amount'));
      await reportChanges(
        app.deps,
        written.map((after, i) => ({ churchId, entityType: 'fundDonation', entityId: after!.id, action: items[i]!.id ? 'updated' : 'created', before: before.get(items[i]!.id ?? ''), after })),
        { req, tx },
      );
      return written.map((row) => row!.id);
    });
    const rows = await listFundDonations(app.db, churchId, { ids });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)!);
  });

  app.delete(`${base}/:id`, { config: { access: requires('Donations.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await app.db.transaction(async (tx) => {
      const gone = await deleteAllocation(tx, req.auth.churchId, req.params.id);
      if (!gone) throw notFound('Fund donation');
      await reportChanges(app.deps, [{ churchId: req.auth.churchId, entityType: 'fundDonation', entityId: gone.id, action: 'destroyed', before: gone }], { req, tx });
    });
    return {};
  });
}
