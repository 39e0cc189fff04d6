import { z } from 'zod';
import { callInternal, type InternalContract, type ServiceDeps } from '@church/common';

/**
 * What messaging asks content about events, for reminders. Content owns events, their recurrence and their
 * registrations; these contracts are asked of the lead for `@church/common`'s `contracts.ts` (content to serve them)
 * and live here, behind one function each, until then.
 */
const Uuid = z.uuid();
const Instant = z.iso.datetime({ offset: true });

export const contentReminderContracts = {
  /**
   * An event of the church (`null` when it is not the church's or is gone) and the starts of its occurrences in
   * `[from, to)`: a recurring event's expanded, its exception dates left out.
   */
  eventOccurrences: {
    module: 'content',
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
    module: 'content',
    path: '/content/internal/events/registrations',
    body: z.object({ churchId: Uuid, eventId: Uuid }),
    answer: z.object({ registrants: z.array(z.string()), attendees: z.array(z.object({ personId: z.string().nullable() })) }),
  },
} satisfies Record<string, InternalContract>;

export type EventOccurrences = z.output<typeof contentReminderContracts.eventOccurrences.answer>;
export type ReminderEvent = NonNullable<EventOccurrences['event']>;

/** An event and its occurrences' starts in `[from, to)`; `event: null` when the church has no such event. */
export function eventOccurrences(deps: Pick<ServiceDeps, 'internal'>, churchId: string, eventId: string, from: Date, to: Date): Promise<EventOccurrences> {
  return callInternal(deps.internal, contentReminderContracts.eventOccurrences, { churchId, eventId, from: from.toISOString(), to: to.toISOString() });
}

/** The people of an event's active registrations. */
export function eventRegistrations(deps: Pick<ServiceDeps, 'internal'>, churchId: string, eventId: string) {
  return callInternal(deps.internal, contentReminderContracts.eventRegistrations, { churchId, eventId });
}
