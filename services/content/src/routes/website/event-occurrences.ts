import type { FastifyInstance } from 'fastify';
import { badRequest, contentInternal, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { zoneOf } from '../../domain/website/calendar';
import { MAX_OCCURRENCES, occurrenceStarts } from '../../lib/occurrences';
import { eventWithExceptions } from '../../repos/website/calendar';

const { eventOccurrences } = contentInternal;

/**
 * Server-to-server (signed): `contentInternal.eventOccurrences` for messaging's reminders. The starts of an
 * event's occurrences in `[from, to)`, a recurring event expanded in the church's time zone, exception dates left
 * out; a request that is still pending or was rejected has none (it is on no calendar).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.post(eventOccurrences.path, { config: { access: 'internal' }, schema: { body: eventOccurrences.body, response: { 200: eventOccurrences.answer } } }, async (req) => {
    const { churchId, eventId } = req.body;
    const from = new Date(req.body.from);
    const to = new Date(req.body.to);
    if (to < from) throw badRequest('to', 'must not be before from');
    const event = await eventWithExceptions(app.db, churchId, eventId);
    if (!event) return { event: null, starts: [] };
    const live = event.approvalStatus === null || event.approvalStatus === 'approved';
    const starts = live ? occurrenceStarts(event, from, to, await zoneOf(contentDeps(app), app.db, churchId), MAX_OCCURRENCES) : [];
    return {
      event: { id: event.id, groupId: event.groupId, title: event.title, registrationEnabled: event.registrationEnabled },
      starts: starts.map((d) => d.toISOString()),
    };
  });
}
