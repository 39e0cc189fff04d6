import { tooManyRequests } from '@church/common';

/**
 * A count per key and minute on this replica, 429 with `Retry-After` (the seconds left in the minute) past
 * `perMinute()`: the public `ping` and `tmpSendAlert` per church, `notifications/create` per caller, so no caller can
 * flood a church's people with notifications. The map is emptied should it ever hold 10,000 keys in one minute.
 */
export function minuteLimiter(perMinute: () => number) {
  const counts = new Map<string, { minute: number; count: number }>();
  return (key: string) => {
    const minute = Math.floor(Date.now() / 60_000);
    const entry = counts.get(key);
    if (!entry || entry.minute !== minute) {
      if (counts.size > 10_000) counts.clear();
      counts.set(key, { minute, count: 1 });
      return;
    }
    if (++entry.count > perMinute()) throw tooManyRequests(60 - Math.floor((Date.now() / 1000) % 60));
  };
}
