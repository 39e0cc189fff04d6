import { tooManyRequests } from '@church/common';

/**
 * The public `ping` trigger, per church and minute on this replica: a caller cannot flood a church's people with
 * notifications. One counter per church (the map is emptied should it ever hold 10,000 churches in one minute).
 */
export function pingLimiter(perMinute: () => number) {
  const pings = new Map<string, { minute: number; count: number }>();
  return (churchId: string) => {
    const minute = Math.floor(Date.now() / 60_000);
    const entry = pings.get(churchId);
    if (!entry || entry.minute !== minute) {
      if (pings.size > 10_000) pings.clear();
      pings.set(churchId, { minute, count: 1 });
      return;
    }
    if (++entry.count > perMinute()) throw tooManyRequests(60 - Math.floor((Date.now() / 1000) % 60));
  };
}
