import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { actorOf, batchOf, Empty, Id, IdParams, IsoDate, notFound, type ZodTypeProvider } from '@church/common';
import { givingDeps } from '../deps';
import { removeAllocation, saveAllocations } from '../domain/allocations';
import { fundDonationById, fundDonationsJson, listFundDonations } from '../repos/fund-donations';
import { FundDonation, FundDonationSave } from '../schemas';
import { itemParams } from './helpers';

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
  const deps = givingDeps(app);

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
    const ids = await saveAllocations(deps, actorOf(req), req.body, itemParams(req));
    const byId = new Map((await listFundDonations(app.db, req.auth.churchId, { ids })).map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)!);
  });

  app.delete(`${base}/:id`, { config: { access: requires('Donations.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await removeAllocation(deps, actorOf(req), req.params.id);
    return {};
  });
}
