import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { actorOf, badRequest, batchOf, coalesced, emailOf, Empty, getRow, IdParams, sameRows, type ZodTypeProvider } from '@church/common';
import { donations } from '../db/schema';
import { givingDeps } from '../deps';
import { saveDonations } from '../domain/donation-save';
import { deleteDonation, donorSummary } from '../domain/donations';
import { dayRange } from '../lib/days';
import { amountOf } from '../lib/money';
import { allocationsOf, donationItem, listDonations, type DonationRow } from '../repos/donations';
import { givingKpis } from '../repos/manual-donations';
import { fundSummary } from '../repos/summary';
import { Donation, DonationKpis, DonationKpiQuery, DonationList, DonationListQuery, DonationSave, DonationSummaryQuery, SummaryRows, TestEmailAnswer } from '../schemas';
import { ownPersonIn } from './access';
import { idempotent, itemParams, sendText } from './helpers';

const base = '/giving/donations';

type SummaryKey = { churchId: string; startDate?: Date; endDate?: Date };
const rangeKey = (k: SummaryKey) => `${k.churchId}\n${k.startDate?.toISOString() ?? ''}\n${k.endDate?.toISOString() ?? ''}`;

/** `/giving/donations`: gifts entered by hand or recorded from the gateways, their lists, summary and figures. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = givingDeps(app);
  const weeks = coalesced((key: SummaryKey) => fundSummary(app.db, key.churchId, key.startDate, key.endDate), rangeKey);

  const withAllocations = async (churchId: string, rows: DonationRow[]) => {
    const allocations = await allocationsOf(app.db, churchId, rows.map((r) => r.id));
    return rows.map((r) => donationItem(r, allocations.get(r.id) ?? []));
  };

  // The lists' answers are JSON text (`listDonations`: written by PostgreSQL, or from a person's rows), sent as they are.
  app.get(base, { config: { access: requires('Donations.View', ownPersonIn('query', 'personId')) }, schema: { querystring: DonationListQuery, response: { 200: DonationList } } }, async (req, reply) =>
    sendText(reply, await listDonations(app.db, req.auth.churchId, req.query)),
  );

  app.get(`${base}/my`, { config: { access: anyUser }, schema: { response: { 200: DonationList } } }, async (req, reply) =>
    req.auth.personId ? sendText(reply, await listDonations(app.db, req.auth.churchId, { personId: req.auth.personId })) : [],
  );

  app.get(`${base}/summary`, { config: { access: requires('Donations.ViewSummary') }, schema: { querystring: DonationSummaryQuery, response: { 200: SummaryRows } } }, async (req, reply) => {
    const { startDate, endDate, type } = req.query;
    if (startDate && endDate && endDate < startDate) throw badRequest('endDate', 'must not be before startDate', 'query');
    if (type === 'person') return donorSummary(deps, req.auth.churchId, { startDate, endDate });
    // Read for every request (concurrent requests for one range share a read that started after they asked),
    // serialized and compressed only when the answer changed since the last time.
    const range = { churchId: req.auth.churchId, startDate, endDate };
    return app.deps.snapshots.sendKept(req, reply, rangeKey(range), await weeks(range), sameRows);
  });

  app.get(`${base}/kpis`, { config: { access: requires('Donations.ViewSummary') }, schema: { querystring: DonationKpiQuery, response: { 200: DonationKpis } } }, async (req) => {
    const { from, to } = dayRange(req.query.startDate, req.query.endDate);
    const k = await givingKpis(app.db, req.auth.churchId, from, to, req.query.fundId);
    return { totalGiving: amountOf(k.total), avgGift: amountOf(k.average), donorCount: k.donors, donationCount: k.gifts };
  });

  app.get(`${base}/testEmail`, { config: { access: 'public' }, schema: { response: { 200: TestEmailAnswer } } }, async () => {
    const to = deps.config.GIVING_TEST_EMAIL ?? null;
    if (!to) return { sent: false, to: null, via: deps.mailer.kind, message: 'Set GIVING_TEST_EMAIL to the address test messages go to' };
    await deps.queue.enqueue(emailOf('giving'), { to, subject: 'Giving test email', html: '<p>This is a test message from the giving service.</p>', text: 'This is a test message from the giving service.' });
    return { sent: true, to, via: deps.mailer.kind, message: deps.mailer.kind === 'mailbox' ? `queued to the development mailbox ($DATA_DIR/mail) for ${to}` : `queued to SendGrid for ${to}` };
  });

  app.get(`${base}/:id`, { config: { access: requires('Donations.View') }, schema: { params: IdParams, response: { 200: Donation } } }, async (req) => {
    const row = await getRow(app.db, donations, req.auth.churchId, req.params.id, 'Donation');
    return (await withAllocations(req.auth.churchId, [row]))[0]!;
  });

  app.post(base, { config: { access: requires('Donations.Edit') }, schema: { body: batchOf(DonationSave), response: { 200: z.array(Donation) } } }, async (req, reply) =>
    idempotent(app.db, req, reply, 'donations', async () => ({ body: await withAllocations(req.auth.churchId, await saveDonations(deps, actorOf(req), req.body, itemParams(req))) })),
  );

  app.delete(`${base}/:id`, { config: { access: requires('Donations.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await deleteDonation(deps, actorOf(req), req.params.id);
    return {};
  });
}
