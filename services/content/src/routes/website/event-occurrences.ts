import type { FastifyInstance } from 'fastify';
import { contentInternal, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { eventOccurrencesBetween } from '../../domain/website/calendar';

const { eventOccurrences } = contentInternal;

/**
 * Server-to-server (signed): `contentInternal.eventOccurrences` for messaging's reminders. The starts of an
 * event's occurrences in `[from, to)`, a recurring event expanded in the church's time zone, exception dates left
 * out; a request that is still pending or was rejected has none (it is on no calendar).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.post(eventOccurrences.path, { config: { access: 'internal' }, schema: { body: eventOccurrences.body, response: { 200: eventOccurrences.answer } } }, async (req) =>
    eventOccurrencesBetween(contentDeps(app), req.body.churchId, req.body.eventId, new Date(req.body.from), new Date(req.body.to)),
  );
}
