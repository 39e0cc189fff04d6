import { readFileSync, writeFileSync } from 'node:fs';
import { startFleet } from '../fleet/src/fleet';

/**
 * The resident set and its peak, from /proc (bytes); `process.memoryUsage()` for the heap and the rest.
 * `resetPeak` starts the peak (VmHWM) over from now (Linux: `5` into /proc/self/clear_refs).
 */
export function memorySample(resetPeak = false) {
  if (resetPeak) {
    try {
      writeFileSync('/proc/self/clear_refs', '5');
    } catch {
      // not Linux: the peak is the process's whole life
    }
  }
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  const m = process.memoryUsage();
  return { rss: kb('VmRSS') || m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, hwm: kb('VmHWM') };
}

/** The embedded fleet as `pnpm start` runs it, answering `sample` over IPC (see memory.ts). */
if (require.main === module) {
  void startFleet({ port: 0 }).then((fleet) => {
    process.send?.('ready');
    process.on('message', () => process.send?.(memorySample()));
    process.on('SIGTERM', () => void fleet.close().then(() => process.exit(0)));
  });
}
