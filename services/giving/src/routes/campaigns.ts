import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { badRequest, coalesced, crud, Id, IdParams, itemParam, notFound, reportChanges, type ZodTypeProvider } from '@church/common';
import { campaigns, funds } from '../db/schema';
import { centsText, toCents } from '../lib/money';
import { campaignItem, campaignPage, campaignsProgress, deletePledgesOf, peopleProgressJson, publicCampaignsProgress } from '../repos/campaigns';
import { Campaign, CampaignPage, CampaignProgress, CampaignSave, PeopleProgressQuery, PledgeProgressRow, PublicCampaignProgress } from '../schemas';

const base = '/giving/campaigns';
const staff = requires('Donations.ViewSummary');

/**
 * `/giving/campaigns`: a church's fundraising campaigns (a goal for a fund between two days), the standard set,
 * and their progress: every campaign's totals (the staff list), one campaign with a row per person, every
 * person's rows (giving statements), and the public campaigns of a church (the member app).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(
    `${base}/progress`,
    { config: { access: staff }, schema: { summary: 'Every campaign with what it has raised and been pledged', response: { 200: z.array(CampaignProgress) } } },
    async (req) => campaignsProgress(app.db, req.auth.churchId),
  );

  // The giving statements' rows and one campaign's page (a row per person: thousands in a big campaign) are kept
  // answers: built once per church and data version (raised at commit by every write to campaigns, pledges and the
  // kept per-person totals, migration 0009), then sent from memory with an ETag (304 while the version holds). The
  // version is read before the rows, so a kept answer is never older than the version it is filed under.
  app.get(
    `${base}/progress/people`,
    {
      config: { access: staff },
      schema: { summary: 'Each person’s pledged and given amounts per campaign (giving statements)', querystring: PeopleProgressQuery, response: { 200: z.array(PledgeProgressRow) } },
    },
    // JSON text written from the rows (`peopleProgressJson`), kept as it is.
    async (req, reply) => {
      const churchId = req.auth.churchId;
      const version = await app.deps.snapshots.version(churchId);
      const variant = `${req.query.personId ?? ''}\n${req.query.campaignId ?? ''}`.toLowerCase();
      return app.deps.snapshots.sendAt(req, reply, churchId, variant, version, () => peopleProgressJson(app.db, churchId, req.query));
    },
  );

  app.get(
    `${base}/:id/progress`,
    { config: { access: staff }, schema: { summary: 'A campaign with its totals and a row per person', params: IdParams, response: { 200: CampaignPage } } },
    async (req, reply) =>
      app.deps.snapshots.send(req, reply, req.auth.churchId, req.params.id.toLowerCase(), async () => {
        const found = await campaignPage(app.db, req.auth.churchId, req.params.id);
        if (!found) throw notFound('Campaign');
        return found;
      }),
  );

  // The member app's giving page is read by many visitors at once: concurrent requests for one church share a
  // read that started after they asked (never an older answer).
  const publicProgress = coalesced((churchId: string) => publicCampaignsProgress(app.db, churchId), (churchId) => churchId.toLowerCase());
  app.get(
    `${base}/churchId/:churchId`,
    {
      config: { access: 'public' },
      schema: { summary: 'A church’s public campaigns not ended, with their totals', params: z.object({ churchId: Id }), response: { 200: z.array(PublicCampaignProgress) } },
    },
    async (req) => publicProgress(req.params.churchId),
  );

  crud(app, {
    path: base,
    name: 'Campaign',
    table: campaigns,
    item: Campaign,
    save: CampaignSave,
    view: staff,
    edit: requires('Donations.Edit'),
    orderBy: [campaigns.startDate, campaigns.name, campaigns.id],
    toItem: campaignItem,
    // A goal of 0 (or none) is no goal.
    toRow: ({ goalAmount, ...rest }) => ({ ...rest, ...(goalAmount === undefined ? {} : { goalAmount: goalAmount ? centsText(toCents(goalAmount)) : null }) }),
    references: { fundId: funds },
    requiredOnCreate: ['name', 'fundId', 'startDate'],
    afterSave: async (rows, req) => {
      rows.forEach((row, i) => {
        if (row.endDate !== null && row.endDate < row.startDate) throw badRequest(itemParam(req, i, 'endDate'), 'must not be before startDate');
      });
    },
    // Its pledges go with it (each reported); the gifts are the fund's and stay.
    beforeDelete: async (row, req, tx) => {
      const gone = await deletePledgesOf(tx, req.auth.churchId, row.id);
      if (gone.length) {
        await reportChanges(
          app.deps,
          gone.map((p) => ({ churchId: req.auth.churchId, entityType: 'pledge', entityId: p.id, action: 'destroyed', before: p })),
          { req, tx },
        );
      }
    },
    changes: { entityType: 'campaign' },
  });
}
