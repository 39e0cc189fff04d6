import type { z } from 'zod';
import { callInternal, contentInternal, type ServiceDeps } from '@church/common';

/** What messaging asks content about events, for reminders (content owns events, their recurrence and registrations). */
export type EventOccurrences = z.output<typeof contentInternal.eventOccurrences.answer>;
export type ReminderEvent = NonNullable<EventOccurrences['event']>;

/** An event and its occurrences' starts in `[from, to)`; `event: null` when the church has no such event. */
export function eventOccurrences(deps: Pick<ServiceDeps, 'internal'>, churchId: string, eventId: string, from: Date, to: Date): Promise<EventOccurrences> {
  return callInternal(deps.internal, contentInternal.eventOccurrences, { churchId, eventId, from: from.toISOString(), to: to.toISOString() });
}

/** The people of an event's active registrations. */
export function eventRegistrations(deps: Pick<ServiceDeps, 'internal'>, churchId: string, eventId: string) {
  return callInternal(deps.internal, contentInternal.eventRegistrations, { churchId, eventId });
}
