import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { and, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { batchOf, coalesced, deleteRow, getRow, Id, IdParams, IsoDate, itemParam, notFound, badRequest, sameRows, type Tx, type ZodTypeProvider } from '@church/common';
import { giving } from '../app';
import { donationBatches, donations, fundDonations } from '../db/schema';
import { ownPersonIn } from '../domain/access';
import { withIdempotency } from '../domain/idempotency';
import { centsText, toCents } from '../domain/money';
import { allocationsOf, checkFunds, donationItem, listDonations, type DonationRow } from '../repos/donations';
import { donationSummary, fundSummary } from '../repos/summary';
import { receiptJob } from '../jobs/contracts';
import { Donation, DonationList, DonationSave, SummaryRows } from '../schemas';

const ListQuery = z.object({ batchId: Id.optional(), personId: Id.optional() });
const SummaryQuery = z.object({ startDate: IsoDate.optional(), endDate: IsoDate.optional(), type: z.enum(['fund', 'person', '']).optional() });

/** The lists' answers are JSON text (`listDonations`: written by PostgreSQL, or from a person's rows), sent as they are. */
const sendText = (reply: FastifyReply, json: string) => reply.type('application/json; charset=utf-8').send(json);
type SummaryKey = { churchId: string; startDate?: Date; endDate?: Date };
const rangeKey = (k: SummaryKey) => `${k.churchId}\n${k.startDate?.toISOString() ?? ''}\n${k.endDate?.toISOString() ?? ''}`;

/** `/giving/donations`. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  const weeks = coalesced((key: SummaryKey) => fundSummary(app.db, key.churchId, key.startDate, key.endDate), rangeKey);

  const listWithFunds = async (churchId: string, rows: DonationRow[]) => {
    const allocations = await allocationsOf(app.db, churchId, rows.map((r) => r.id));
    return rows.map((r) => donationItem(r, allocations.get(r.id) ?? []));
  };

  app.get(
    '/giving/donations',
    { config: { access: requires('Donations.View', ownPersonIn('query', 'personId')) }, schema: { querystring: ListQuery, response: { 200: DonationList } } },
    async (req, reply) => {
      const { batchId, personId } = req.query;
      return sendText(reply, await listDonations(app.db, req.auth.churchId, { batchId, personId }));
    },
  );

  app.get('/giving/donations/my', { config: { access: anyUser }, schema: { response: { 200: DonationList } } }, async (req, reply) => {
    if (!req.auth.personId) return [];
    return sendText(reply, await listDonations(app.db, req.auth.churchId, { personId: req.auth.personId }));
  });

  app.get(
    '/giving/donations/summary',
    { config: { access: requires('Donations.ViewSummary') }, schema: { querystring: SummaryQuery, response: { 200: SummaryRows } } },
    async (req, reply) => {
      const { startDate, endDate, type } = req.query;
      if (startDate && endDate && endDate < startDate) throw badRequest('endDate', 'must not be before startDate', 'query');
      if (type === 'person') return donationSummary(app, req.auth.churchId, { startDate, endDate, byPerson: true });
      // Read for every request (concurrent requests for one range share a read that started after they asked),
      // serialized and compressed only when the answer changed since the last time.
      const range = { churchId: req.auth.churchId, startDate, endDate };
      return app.deps.snapshots.sendKept(req, reply, rangeKey(range), await weeks(range), sameRows);
    },
  );

  app.get('/giving/donations/testEmail', { config: { access: 'public' }, schema: { response: { 200: z.object({ sent: z.boolean(), to: z.string().nullable(), via: z.string(), message: z.string() }) } } }, async () => {
    const deps = giving.deps(app);
    const to = deps.config.GIVING_TEST_EMAIL ?? null;
    if (!to) return { sent: false, to: null, via: deps.mailer.kind, message: 'Set GIVING_TEST_EMAIL to the address test messages go to' };
    await deps.queue.enqueue('giving.email', { to, subject: 'Giving test email', html: '<p>This is a test message from the giving service.</p>', text: 'This is a test message from the giving service.' });
    return { sent: true, to, via: deps.mailer.kind, message: deps.mailer.kind === 'mailbox' ? `queued to the development mailbox ($DATA_DIR/mail) for ${to}` : `queued to SendGrid for ${to}` };
  });

  app.get('/giving/donations/:id', { config: { access: requires('Donations.View') }, schema: { params: IdParams, response: { 200: Donation } } }, async (req) => {
    const row = (await getRow(app.db, donations, req.auth.churchId, req.params.id, 'Donation')) as DonationRow;
    return (await listWithFunds(req.auth.churchId, [row]))[0]!;
  });

  app.post(
    '/giving/donations',
    { config: { access: requires('Donations.Edit') }, schema: { body: batchOf(DonationSave), response: { 200: z.array(Donation) } } },
    async (req, reply) =>
      withIdempotency(req, reply, 'donations', async () => {
        const churchId = req.auth.churchId;
        const items = req.body;
        // Referenced batches and funds must be the church's own.
        const batchIds = [...new Set(items.map((i) => i.batchId).filter((v): v is string => !!v))];
        if (batchIds.length) {
          const found = await app.db.select({ id: donationBatches.id }).from(donationBatches).where(and(eq(donationBatches.churchId, churchId), inArray(donationBatches.id, batchIds)));
          const known = new Set(found.map((b) => b.id));
          items.forEach((item, i) => {
            if (item.batchId && !known.has(item.batchId)) throw badRequest(itemParam(req, i, 'batchId'), 'is not a batch of this church');
          });
        }
        for (const [i, item] of items.entries()) {
          if (!item.id && item.amount === undefined) throw badRequest(itemParam(req, i, 'amount'), 'is required');
          if (item.funds) {
            await checkFunds(app.db, churchId, item.funds.map((f) => f.fundId), (j) => itemParam(req, i, `funds[${j}].fundId`));
            if (item.amount !== undefined && item.funds.reduce((s, f) => s + toCents(f.amount), 0) > toCents(item.amount)) {
              throw badRequest(itemParam(req, i, 'funds'), 'allocations must not exceed the amount');
            }
          }
        }
        const created: string[] = [];
        const saved = await app.db.transaction(async (tx: Tx) => {
          const out: DonationRow[] = [];
          for (const item of items) {
            const values = {
              ...(item.batchId !== undefined ? { batchId: item.batchId ?? null } : {}),
              ...(item.personId !== undefined ? { personId: item.personId ?? null } : {}),
              ...(item.donationDate ? { donationDate: item.donationDate } : {}),
              ...(item.amount !== undefined ? { amount: centsText(toCents(item.amount)) } : {}),
              ...(item.currency ? { currency: item.currency } : {}),
              ...(item.method !== undefined ? { method: item.method ?? null } : {}),
              ...(item.methodDetails !== undefined ? { methodDetails: item.methodDetails ?? null } : {}),
              ...(item.notes !== undefined ? { notes: item.notes ?? null } : {}),
              ...(item.status ? { status: item.status } : {}),
              ...(item.transactionId !== undefined ? { transactionId: item.transactionId || null } : {}),
            };
            let row: DonationRow | undefined;
            if (item.id) {
              // The status before the update: a gift entered as pending and now confirmed is receipted then.
              const [before] = await tx
                .select({ status: donations.status })
                .from(donations)
                .where(and(eq(donations.churchId, churchId), eq(donations.id, item.id)))
                .for('update');
              if (!before) throw notFound('Donation');
              [row] = await tx
                .update(donations)
                .set({ ...values, updatedAt: new Date() })
                .where(and(eq(donations.churchId, churchId), eq(donations.id, item.id)))
                .returning();
              if (!row) throw notFound('Donation');
              if (before.status === 'pending' && row.status === 'complete') created.push(row.id);
            } else {
              [row] = await tx
                .insert(donations)
                .values({ id: randomUUID(), churchId, amount: values.amount!, ...values })
                .returning();
              if (row!.status === 'complete') created.push(row!.id);
            }
            if (item.funds) {
              await tx.delete(fundDonations).where(and(eq(fundDonations.churchId, churchId), eq(fundDonations.donationId, row!.id)));
              if (item.funds.length) {
                await tx.insert(fundDonations).values(item.funds.map((f) => ({ id: randomUUID(), churchId, donationId: row!.id, fundId: f.fundId, amount: centsText(toCents(f.amount)) })));
              }
            }
            out.push(row!);
          }
          return out;
        });
        // Receipts leave after the commit, a little later so allocations posted right after the donation
        // (the usual two-call entry: donation, then its fund donations) are on them.
        const deps = giving.deps(app);
        for (const donationId of created) await deps.queue.enqueue(receiptJob, { churchId, donationId }, { jobId: `receipt-${donationId}`, delayMs: deps.config.RECEIPT_DELAY_MS });
        return { body: await listWithFunds(churchId, saved) };
      }),
  );

  app.delete('/giving/donations/:id', { config: { access: requires('Donations.Edit') }, schema: { params: IdParams } }, async (req) => {
    await app.db.transaction(async (tx) => {
      await deleteRow(tx, donations, req.auth.churchId, req.params.id);
      await tx.delete(fundDonations).where(and(eq(fundDonations.churchId, req.auth.churchId), eq(fundDonations.donationId, req.params.id)));
    });
    return {};
  });
}
