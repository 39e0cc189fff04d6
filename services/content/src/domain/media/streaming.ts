import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { streamingServices } from '../../db/media';

const WEEK_MS = 7 * 24 * 3600 * 1000;

type Service = Pick<typeof streamingServices.$inferSelect, 'serviceTime' | 'duration' | 'chatAfter'>;

/** When a service is over: its start, its length in minutes, then the chat's time after it in seconds. */
export function endOf(s: Service): Date {
  return new Date(s.serviceTime.getTime() + s.duration * 60_000 + s.chatAfter * 1000);
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
  const expired = sql`${streamingServices.serviceTime} + make_interval(mins => ${streamingServices.duration}, secs => ${streamingServices.chatAfter}) < ${now}`;
  const scope = churchId ? eq(streamingServices.churchId, churchId) : undefined;
  await db.delete(streamingServices).where(and(scope, eq(streamingServices.recurring, false), expired));
  const stale = await db.select().from(streamingServices).where(and(scope, eq(streamingServices.recurring, true), expired));
  for (const s of stale) {
    await db.update(streamingServices).set({ serviceTime: nextOccurrence(s, now), updatedAt: now }).where(eq(streamingServices.id, s.id));
  }
}
