import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { badRequest, batchOf, crud, itemParam, notFound, reportChanges, type Tx, type ZodTypeProvider } from '@church/common';
import { knownPeople } from '../clients/membership';
import { pledges } from '../db/schema';
import { ownInBody } from '../domain/access';
import { toCents } from '../domain/money';
import { campaignRows, campaignsByIds, hasEnded } from '../repos/campaigns';
import { pledgeItem, updatePledge, upsertPledge } from '../repos/pledges';
import { MyPledge, MyPledgeSave, Pledge, PledgeSave } from '../schemas';

const base = '/giving/pledges';
type Change = Awaited<ReturnType<typeof upsertPledge>>;

/**
 * `/giving/pledges`: what people pledged to the church's campaigns, one pledge per person and campaign. Staff
 * read, enter and remove them; a signed-in member reads their own with what they gave (`/my`) and pledges to a
 * campaign that takes members' pledges.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const report = (req: FastifyRequest, tx: Tx, changes: Change[]) =>
    reportChanges(
      app.deps,
      changes.map(({ before, after }) => ({ churchId: req.auth.churchId, entityType: 'pledge', entityId: after.id, action: before ? 'updated' : 'created', before, after })),
      { req, tx },
    );

  app.get(
    `${base}/my`,
    { config: { access: anyUser }, schema: { summary: 'The caller’s own pledges with their campaigns and what they gave', response: { 200: z.array(MyPledge) } } },
    async (req) => {
      const personId = req.auth.personId;
      if (!personId) return [];
      const mine = await campaignRows(app.db, req.auth.churchId, { personId, pledgedOnly: true });
      return mine.flatMap(({ campaign, rows }) =>
        rows.map((r) => ({ pledge: { id: r.pledgeId!, campaignId: campaign.id, personId, amount: r.pledgedAmount }, campaign, givenAmount: r.givenAmount, status: r.status })),
      );
    },
  );

  // A body-decided rule: any signed-in person passes the door; the campaign must take members' pledges.
  app.post(
    `${base}/my`,
    { config: { access: ownInBody('own pledge') }, schema: { summary: 'Pledges to a campaign as the caller (a second pledge changes the first)', body: MyPledgeSave, response: { 200: Pledge } } },
    async (req) => {
      const churchId = req.auth.churchId;
      const personId = req.auth.personId!;
      const [campaign] = await campaignsByIds(app.db, churchId, [req.body.campaignId]);
      if (!campaign) throw badRequest('campaignId', 'is not a campaign of this church');
      if (!campaign.allowSelfPledge) throw badRequest('campaignId', 'does not take pledges from members');
      if (hasEnded(campaign)) throw badRequest('campaignId', 'has ended');
      const saved = await app.db.transaction(async (tx) => {
        const change = await upsertPledge(tx, churchId, { campaignId: campaign.id, personId, cents: toCents(req.body.amount) });
        await report(req, tx, [change]);
        return change.after;
      });
      return pledgeItem(saved);
    },
  );

  app.post(
    base,
    { config: { access: requires('Donations.Edit') }, schema: { summary: 'Enters or changes pledges (one per person and campaign)', body: batchOf(PledgeSave), response: { 200: z.array(Pledge) } } },
    async (req) => {
      const churchId = req.auth.churchId;
      const items = req.body.map((it) => ({ ...it, id: it.id?.toLowerCase(), campaignId: it.campaignId?.toLowerCase(), personId: it.personId?.toLowerCase() }));
      items.forEach((it, i) => {
        if (it.id) return;
        for (const field of ['campaignId', 'personId', 'amount'] as const) if (it[field] === undefined) throw badRequest(itemParam(req, i, field), 'is required');
      });
      const campaignIds = [...new Set(items.map((it) => it.campaignId).filter((v): v is string => !!v))];
      const known = new Set((await campaignsByIds(app.db, churchId, campaignIds)).map((c) => c.id));
      items.forEach((it, i) => {
        if (it.campaignId && !known.has(it.campaignId)) throw badRequest(itemParam(req, i, 'campaignId'), 'is not a campaign of this church');
      });
      // A pledge is a person of the church's (membership answers only its own church's people).
      const people = await knownPeople(app.deps.internal, churchId, items.map((it) => it.personId).filter((v): v is string => !!v));
      items.forEach((it, i) => {
        if (it.personId && !people.has(it.personId)) throw badRequest(itemParam(req, i, 'personId'), 'is not a person of this church');
      });
      const saved = await app.db.transaction(async (tx) => {
        const changes: Change[] = [];
        for (const it of items) {
          const cents = it.amount === undefined ? undefined : toCents(it.amount);
          if (it.id) {
            const changed = await updatePledge(tx, churchId, it.id, { campaignId: it.campaignId, personId: it.personId, cents });
            if (!changed) throw notFound('Pledge');
            changes.push(changed);
          } else changes.push(await upsertPledge(tx, churchId, { campaignId: it.campaignId!, personId: it.personId!, cents: cents! }));
        }
        await report(req, tx, changes);
        return changes.map((c) => c.after);
      });
      return saved.map(pledgeItem);
    },
  );

  crud(app, {
    path: base,
    name: 'Pledge',
    table: pledges,
    item: Pledge,
    save: PledgeSave,
    only: ['list', 'get', 'delete'],
    view: requires('Donations.View'),
    edit: requires('Donations.Edit'),
    orderBy: [pledges.campaignId, pledges.createdAt],
    filters: { campaignId: pledges.campaignId, personId: pledges.personId },
    toItem: pledgeItem,
    changes: { entityType: 'pledge' },
  });
}
