import type { ContentDeps } from '../deps';

/**
 * Where the clock stands against the church's scheduled publications (posts and sermons published at a future
 * date). `read(after)` lists their publish times (epoch ms, rounded up, ascending) later than `after`; the list
 * is kept per church and data version. `step` counts those that have passed: an answer kept under it is built
 * again exactly when a scheduled item goes live, and `now` is the cut-off to build it with.
 */
export async function publishStep(
  deps: Pick<ContentDeps, 'snapshots'>,
  name: string,
  churchId: string,
  version: string,
  read: (after: Date) => Promise<number[]>,
): Promise<{ now: Date; step: number }> {
  const times = await deps.snapshots.value(`${name}-schedule\n${churchId}`, version, () => read(new Date()), (t) => 64 + 8 * t.length);
  const now = Date.now();
  // the number of times <= now (binary search over the ascending list)
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! <= now) lo = mid + 1;
    else hi = mid;
  }
  return { now: new Date(now), step: lo };
}
