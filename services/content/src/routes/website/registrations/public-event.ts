import type { FastifyInstance } from 'fastify';
import { notFound, type ZodTypeProvider } from '@church/common';
import { findEvent } from '../../../repos/registrations';
import { PublicEvent, PublicEventParams } from '../../../schemas/registrations';

/**
 * B1App's public registration page (`/register/[eventId]`, EventRegisterPage.tsx): one public event of the
 * church, signed out. A private event is a 404, and the answer leaves out the event's group.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get('/content/events/public/:churchId/:eventId', { config: { access: 'public' }, schema: { params: PublicEventParams, response: { 200: PublicEvent } } }, async (req) => {
    const event = await findEvent(app.db, req.params.churchId, req.params.eventId);
    if (!event || event.visibility !== 'public') throw notFound('Event');
    return event;
  });
}
