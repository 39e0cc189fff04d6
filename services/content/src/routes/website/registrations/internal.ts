import type { FastifyInstance } from 'fastify';
import { contentInternal, type ZodTypeProvider } from '@church/common';
import { activeAttendance } from '../../../repos/registrations';

/**
 * `contentInternal.eventRegistrations` (messaging's event reminders): the registrants of the event's pending and
 * confirmed registrations and the people they registered. A registration without members counts its registrant
 * as its one attendee; guests without a person record are not registrants.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const contract = contentInternal.eventRegistrations;
  app.post(contract.path, { config: { access: 'internal' }, schema: { body: contract.body, response: { 200: contract.answer } } }, async (req) => {
    const { registrations, members } = await activeAttendance(app.db, req.body.churchId, req.body.eventId);
    const withMembers = new Set(members.map((m) => m.registrationId));
    return {
      registrants: [...new Set(registrations.flatMap((r) => (r.personId ? [r.personId] : [])))],
      attendees: [
        ...members.map((m) => ({ personId: m.personId })),
        ...registrations.filter((r) => !withMembers.has(r.id)).map((r) => ({ personId: r.personId })),
      ],
    };
  });
}
