import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

/** What the lock file says of the fleet that holds a data folder. */
interface Holder {
  pid: number;
  host: string;
  port: number;
  since: string;
}

/**
 * Takes the data folder for this fleet: `DATA_DIR/fleet.lock`, made only if absent (O_EXCL), naming this process.
 * A second fleet on the same folder would open the same embedded database and ruin it: it is refused at once,
 * naming the holder. A lock whose process is gone (a power cut, kill -9) is taken over. Answers the release.
 */
export function lockDataDir(dataDir: string, port: number): () => void {
  const file = path.join(dataDir, 'fleet.lock');
  const mine: Holder = { pid: process.pid, host: hostname(), port, since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, JSON.stringify(mine));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readHolder(file);
    if (holder && holder.host === mine.host && isAlive(holder.pid)) {
      throw new Error(
        `The data folder ${dataDir} is in use by the fleet of process ${holder.pid} (gateway port ${holder.port}, since ${holder.since}). ` +
          'Stop that fleet first, or start this one with another DATA_DIR.',
      );
    }
    // The holder is gone without releasing it (or the file is unreadable): take it over, once.
    rmSync(file, { force: true });
  }
  throw new Error(`The data folder ${dataDir} could not be locked: another fleet took it at the same moment`);
}

function readHolder(file: string): Holder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Holder>;
    return typeof parsed.pid === 'number' ? { pid: parsed.pid, host: String(parsed.host ?? ''), port: Number(parsed.port ?? 0), since: String(parsed.since ?? '') } : undefined;
  } catch {
    return undefined;
  }
}

/** True while a process of that id runs (signal 0 only asks). */
function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
