import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { streamingServices } from '../../db/media';

const WEEK_MS = 7 * 24 * 3600 * 1000;

type Service = Pick<typeof streamingServices.$inferSelect, 'serviceTime' | 'duration' | 'chatAfter'>;

/** When a service is over: its start, its length, then the chat's time after it (both in seconds). */
export function endOf(s: Service): Date {
  return new Date(s.serviceTime.getTime() + (s.duration + s.chatAfter) * 1000);
}

/** Seconds as the live page reads them: `m:ss` (`600` is `10:00`, `75` is `1:15`). */
export function minutesAndSeconds(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * The time the staff list answers: the start moved back by the service's `timezoneOffset` (minutes, as the
 * entering browser's getTimezoneOffset() gives it), which the staff app adds again to show the wall-clock
 * time the service was entered in. A service saved without an offset is answered as stored.
 */
export function listedTime(s: Pick<typeof streamingServices.$inferSelect, 'serviceTime' | 'timezoneOffset'>): Date {
  return new Date(s.serviceTime.getTime() - (s.timezoneOffset ?? 0) * 60_000);
}

/** The first weekly occurrence of a recurring service that has not ended by `now`. */
export function nextOccurrence(s: Service, now: Date): Date {
  const lengthMs = endOf(s).getTime() - s.serviceTime.getTime();
  const weeks = Math.max(1, Math.ceil((now.getTime() - lengthMs - s.serviceTime.getTime()) / WEEK_MS));
  let start = s.serviceTime.getTime() + weeks * WEEK_MS;
  while (start + lengthMs <= now.getTime()) start += WEEK_MS;
  return new Date(start);
}

/**
 * The list's maintenance (spec states table): expired one-time services are removed, expired recurring ones
 * advanced to their next weekly occurrence. For one church, or for every church (the repeatable job).
 */
export async function refreshServices(db: DbOrTx, churchId: string | null, now = new Date()): Promise<void> {
  const expired = sql`${streamingServices.serviceTime} + make_interval(secs => ${streamingServices.duration} + ${streamingServices.chatAfter}) < ${now}`;
  const scope = churchId ? eq(streamingServices.churchId, churchId) : undefined;
  await db.delete(streamingServices).where(and(scope, eq(streamingServices.recurring, false), expired));
  const stale = await db.select().from(streamingServices).where(and(scope, eq(streamingServices.recurring, true), expired));
  for (const s of stale) {
    await db.update(streamingServices).set({ serviceTime: nextOccurrence(s, now), updatedAt: now }).where(eq(streamingServices.id, s.id));
  }
}
