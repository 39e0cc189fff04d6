import { z } from 'zod';
import { jobContract } from '../queue';

const Uuid = z.uuid();

/** Content removes a site's pages once membership has removed the site (enqueued in the delete's transaction). */
export const siteRemoved = jobContract({ name: 'content.siteRemoved', schema: z.object({ churchId: Uuid, siteId: Uuid }), attempts: 12, backoffMs: 2000 });

const Instant = z.iso.datetime({ offset: true });

/** Content's internal routes other modules call (signed; `callInternal`). */
export const contentInternal = {
  /**
   * An event of the church (`null` when it is not the church's or is gone) and the starts of its occurrences in
   * `[from, to)`: a recurring event's expanded, its exception dates left out (messaging's reminders).
   */
  eventOccurrences: {
    module: 'content' as const,
    path: '/content/internal/events/occurrences',
    body: z.object({ churchId: Uuid, eventId: Uuid, from: Instant, to: Instant }),
    answer: z.object({
      event: z.object({ id: z.string(), groupId: z.string().nullable(), title: z.string().nullable(), registrationEnabled: z.boolean() }).nullable(),
      starts: z.array(Instant).max(1000),
    }),
  },
  /**
   * The people of an event's active (pending or confirmed) registrations: who registered (`registrants`), and the
   * people registered (`attendees`, `personId` null for a name typed in without a person record).
   */
  eventRegistrations: {
    module: 'content' as const,
    path: '/content/internal/events/registrations',
    body: z.object({ churchId: Uuid, eventId: Uuid }),
    answer: z.object({ registrants: z.array(z.string()), attendees: z.array(z.object({ personId: z.string().nullable() })) }),
  },
} as const;

