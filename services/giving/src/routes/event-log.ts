import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { crud, type ZodTypeProvider } from '@church/common';
import { eventLogs } from '../db/schema';
import { listEventLogs } from '../repos/event-logs';
import { EventLog, EventLogSave } from '../schemas';

const base = '/giving/eventLog';

/** `/giving/eventLog`: the audit log of gateway events (written by the webhook job; treasurers may annotate and resolve). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(
    `${base}/type/:type`,
    { config: { access: requires('Donations.ViewSummary') }, schema: { params: z.object({ type: z.string().min(1).max(255) }), response: { 200: z.array(EventLog) } } },
    async (req) => listEventLogs(app.db, req.auth.churchId, { type: req.params.type }),
  );

  crud(app, {
    path: base,
    name: 'Event log entry',
    table: eventLogs,
    item: EventLog,
    save: EventLogSave,
    view: requires('Donations.ViewSummary'),
    edit: requires('Donations.Edit'),
    requiredOnCreate: ['eventType'],
    readers: {
      list: (req) => listEventLogs(app.db, req.auth.churchId),
      get: async (req, id) => (await listEventLogs(app.db, req.auth.churchId, { id }))[0],
    },
    changes: { entityType: 'eventLog' },
  });
}
