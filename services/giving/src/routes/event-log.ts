import type { FastifyInstance } from 'fastify';
import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { requires } from '@church/auth';
import { badRequest, crud, itemParam, type ZodTypeProvider } from '@church/common';
import { eventLogs } from '../db/schema';
import { EventLog, EventLogSave } from '../schemas';

/** `/giving/eventLog`: the audit log of gateway events (written by the webhook job; treasurers may annotate and resolve). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/giving/eventLog/type/:type',
    { config: { access: requires('Donations.ViewSummary') }, schema: { params: z.object({ type: z.string().min(1).max(255) }), response: { 200: z.array(EventLog) } } },
    async (req) =>
      app.db
        .select()
        .from(eventLogs)
        .where(and(eq(eventLogs.churchId, req.auth.churchId), eq(eventLogs.eventType, req.params.type)))
        .orderBy(desc(eventLogs.createdAt))
        .limit(1000),
  );

  crud(app, {
    path: '/giving/eventLog',
    table: eventLogs,
    item: EventLog,
    save: EventLogSave,
    view: requires('Donations.ViewSummary'),
    edit: requires('Donations.Edit'),
    orderBy: desc(eventLogs.createdAt),
    toRow: (input, req) => {
      if (!input.id && !input.eventType) throw badRequest(itemParam(req, 0, 'eventType'), 'is required');
      return input;
    },
  });
}
