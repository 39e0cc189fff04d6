import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { actorOf, batchOf, crud, type ZodTypeProvider } from '@church/common';
import { pledges } from '../db/schema';
import { givingDeps } from '../deps';
import { myPledges, pledgeAsMember, savePledges } from '../domain/pledges';
import { pledgeItem } from '../repos/pledges';
import { MyPledge, MyPledgeSave, Pledge, PledgeSave } from '../schemas';
import { ownInBody } from './access';
import { itemParams } from './helpers';

const base = '/giving/pledges';

/**
 * `/giving/pledges`: what people pledged to the church's campaigns, one pledge per person and campaign. Staff
 * read, enter and remove them; a signed-in member reads their own with what they gave (`/my`) and pledges to a
 * campaign that takes members' pledges.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = givingDeps(app);

  app.get(
    `${base}/my`,
    { config: { access: anyUser }, schema: { summary: 'The caller’s own pledges with their campaigns and what they gave', response: { 200: z.array(MyPledge) } } },
    async (req) => myPledges(deps, actorOf(req)),
  );

  // A body-decided rule: any signed-in person passes the door; the campaign must take members' pledges.
  app.post(
    `${base}/my`,
    { config: { access: ownInBody('own pledge') }, schema: { summary: 'Pledges to a campaign as the caller (a second pledge changes the first)', body: MyPledgeSave, response: { 200: Pledge } } },
    async (req) => pledgeItem(await pledgeAsMember(deps, actorOf(req), req.body)),
  );

  app.post(
    base,
    { config: { access: requires('Donations.Edit') }, schema: { summary: 'Enters or changes pledges (one per person and campaign)', body: batchOf(PledgeSave), response: { 200: z.array(Pledge) } } },
    async (req) => (await savePledges(deps, actorOf(req), req.body, itemParams(req))).map(pledgeItem),
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
