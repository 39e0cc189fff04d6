import type { FastifyInstance } from 'fastify';
import { and, desc, eq, gte, lte } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Id, IdParams, IsoDate, badRequest, notFound, type ZodTypeProvider } from '@church/common';
import { deliveryLogs } from '../db/schema';
import { assertSelfOr } from '../domain/access';
import { ContentParams } from '../schemas';

const readers = requires('People.View or Texting.Send');

/** `/messaging/deliverylogs`: every push, SMS and email attempt. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/messaging/deliverylogs/content/:contentType/:contentId', { config: { access: readers }, schema: { params: ContentParams } }, async (req) =>
    app.db
      .select()
      .from(deliveryLogs)
      .where(and(eq(deliveryLogs.churchId, req.auth.churchId), eq(deliveryLogs.contentType, req.params.contentType), eq(deliveryLogs.contentId, req.params.contentId)))
      .orderBy(desc(deliveryLogs.attemptedAt))
      .limit(1000),
  );

  app.get(
    '/messaging/deliverylogs/person/:personId',
    { config: { access: anyUser }, schema: { params: z.object({ personId: Id }), querystring: z.object({ startDate: IsoDate.optional(), endDate: IsoDate.optional() }) } },
    async (req) => {
      assertSelfOr(req.auth, req.params.personId, 'People.View', 'Texting.Send');
      const { startDate, endDate } = req.query;
      if (startDate && endDate && endDate < startDate) throw badRequest('endDate', 'must not be before startDate', 'query');
      const conditions = [eq(deliveryLogs.churchId, req.auth.churchId), eq(deliveryLogs.personId, req.params.personId)];
      if (startDate) conditions.push(gte(deliveryLogs.attemptedAt, startDate));
      // A date without a time means the whole day.
      if (endDate) conditions.push(lte(deliveryLogs.attemptedAt, /T/.test(String(req.query.endDate)) ? endDate : new Date(endDate.getTime() + 86_399_999)));
      return app.db.select().from(deliveryLogs).where(and(...conditions)).orderBy(desc(deliveryLogs.attemptedAt)).limit(1000);
    },
  );

  app.get('/messaging/deliverylogs/recent', { config: { access: readers }, schema: { querystring: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }) } }, async (req) =>
    app.db.select().from(deliveryLogs).where(eq(deliveryLogs.churchId, req.auth.churchId)).orderBy(desc(deliveryLogs.attemptedAt)).limit(req.query.limit),
  );

  app.get('/messaging/deliverylogs/:id', { config: { access: readers }, schema: { params: IdParams } }, async (req) => {
    const [row] = await app.db.select().from(deliveryLogs).where(and(eq(deliveryLogs.churchId, req.auth.churchId), eq(deliveryLogs.id, req.params.id)));
    if (!row) throw notFound('Delivery log');
    return row;
  });
}
