import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { coalesced, crud, Id, notFound, type ZodTypeProvider } from '@church/common';
import { funds } from '../db/schema';
import { visibleFunds } from '../repos/funds';
import { fundTotal } from '../repos/summary';
import { DateRangeQuery, Fund, FundSave } from '../schemas';

const toItem = (row: Record<string, unknown>) => ({ id: row.id as string, name: row.name as string, taxDeductible: row.taxDeductible as boolean, visible: row.visible as boolean });

/** `/giving/funds`: the standard set (soft delete), the public list of a church and a fund's public total. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/giving/funds/churchId/:churchId',
    { config: { access: 'public' }, schema: { params: z.object({ churchId: Id }), response: { 200: z.array(Fund) } } },
    async (req) => (await visibleFunds(app.db, req.params.churchId)).map(toItem),
  );

  // A public thermometer is read by many visitors at once: concurrent requests for one fund and range share a
  // read that started after they asked (requests collapsed, as a caching proxy does; never an older answer).
  const totals = coalesced(
    (k: { churchId: string; fundId: string; startDate?: Date; endDate?: Date }) => fundTotal(app.db, k.churchId, k.fundId, k.startDate, k.endDate),
    (k) => `${k.churchId}\n${k.fundId}\n${k.startDate?.toISOString() ?? ''}\n${k.endDate?.toISOString() ?? ''}`.toLowerCase(),
  );

  app.get(
    '/giving/funds/public/:churchId/:fundId/total',
    {
      config: { access: 'public' },
      schema: { params: z.object({ churchId: Id, fundId: Id }), querystring: DateRangeQuery, response: { 200: z.object({ fundId: z.string(), totalAmount: z.number(), donationCount: z.number().int() }) } },
    },
    async (req) => {
      const total = await totals({ churchId: req.params.churchId, fundId: req.params.fundId, startDate: req.query.startDate, endDate: req.query.endDate });
      if (!total) throw notFound('Fund');
      return { ...total, fundId: req.params.fundId };
    },
  );

  crud(app, { path: '/giving/funds', name: 'Fund', table: funds, item: Fund, save: FundSave, view: anyUser, edit: requires('Donations.Edit'), orderBy: funds.name, toItem, changes: { entityType: 'fund' } });
}
