import type { Actor, DbOrTx } from '@church/common';
import { clearServiceBlockedIps } from '../../clients/messaging';
import type { ContentDeps } from '../../deps';
import { expiredRecurring, moveService, removeExpiredOneTime, type StreamingServiceRow } from '../../repos/media/streaming';

const WEEK_MS = 7 * 24 * 3600 * 1000;

type Service = Pick<StreamingServiceRow, 'serviceTime' | 'duration' | 'chatAfter'>;

/** When a service is over: its start, its length, then the chat's time after it (both in seconds). */
export function endOf(s: Service): Date {
  return new Date(s.serviceTime.getTime() + (s.duration + s.chatAfter) * 1000);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A service's id as the live page's chat sends it: sealed with the shared ENCRYPTION_KEY (the preview answers it
 * so, because messaging's chat takes only a sealed id), or plain (the staff app). Undefined when it is neither.
 */
export function serviceIdOf(secrets: { decrypt(sealed: string): string }, value: string): string | undefined {
  if (UUID.test(value)) return value;
  try {
    const plain = secrets.decrypt(value);
    return UUID.test(plain) ? plain : undefined;
  } catch {
    return undefined;
  }
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
export function listedTime(s: Pick<StreamingServiceRow, 'serviceTime' | 'timezoneOffset'>): Date {
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
  await removeExpiredOneTime(db, churchId, now);
  for (const s of await expiredRecurring(db, churchId, now)) await moveService(db, s.id, nextOccurrence(s, now), now);
}

/**
 * Messaging keeps the chat's blocked addresses per service; a saved or deleted service starts with none. A
 * failure is logged, never the caller's: the service is saved either way.
 */
export async function clearBlockedIps(deps: Pick<ContentDeps, 'internal'>, actor: Actor, serviceIds: string[]): Promise<void> {
  for (const serviceId of serviceIds) {
    try {
      await clearServiceBlockedIps(deps.internal, actor.churchId, serviceId, actor.requestId);
    } catch (err) {
      actor.log.warn({ err, serviceId }, 'could not clear the blocked IPs of a streaming service');
    }
  }
}
