import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Id, IdParams, badRequest, notFound, type ZodTypeProvider } from '@church/common';
import { assertSelfOr } from '../domain/access';
import { findLog, logsOfContent, logsOfPerson, recentLogs } from '../repos/delivery-logs';
import { ContentParams } from '../schemas/common';
import { DeliveryLog, PersonLogsQuery, RecentQuery } from '../schemas/delivery-logs';

const base = '/messaging/deliverylogs';
const readers = requires('People.View or Texting.Send');

/** `/messaging/deliverylogs`: every push, SMS and email attempt. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(`${base}/content/:contentType/:contentId`, { config: { access: readers }, schema: { params: ContentParams, response: { 200: z.array(DeliveryLog) } } }, async (req) =>
    logsOfContent(app.db, req.auth.churchId, req.params.contentType, req.params.contentId),
  );

  app.get(
    `${base}/person/:personId`,
    { config: { access: anyUser }, schema: { params: z.object({ personId: Id }), querystring: PersonLogsQuery, response: { 200: z.array(DeliveryLog) } } },
    async (req) => {
      assertSelfOr(req.auth, req.params.personId, 'People.View', 'Texting.Send');
      const { startDate, endDate } = req.query;
      if (startDate && endDate && endDate < startDate) throw badRequest('endDate', 'must not be before startDate', 'query');
      // A date without a time (as the query wrote it) means the whole day.
      const written = new URL(req.url, 'http://local').searchParams.get('endDate') ?? '';
      const to = endDate && !written.includes('T') ? new Date(endDate.getTime() + 86_399_999) : endDate;
      return logsOfPerson(app.db, req.auth.churchId, req.params.personId, { from: startDate, to });
    },
  );

  app.get(`${base}/recent`, { config: { access: readers }, schema: { querystring: RecentQuery, response: { 200: z.array(DeliveryLog) } } }, async (req) =>
    recentLogs(app.db, req.auth.churchId, req.query.limit),
  );

  app.get(`${base}/:id`, { config: { access: readers }, schema: { params: IdParams, response: { 200: DeliveryLog } } }, async (req) => {
    const row = await findLog(app.db, req.auth.churchId, req.params.id);
    if (!row) throw notFound('Delivery log');
    return row;
  });
}
