import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

export interface Child<Ready> {
  ready: Ready;
  process: ChildProcess;
  /** asks the child to close, then kills it if it has not gone within `ms` */
  stop(ms?: number): Promise<void>;
}

/**
 * Passes a child's output on, a line at a time with a prefix, capped so a failing process cannot flood the
 * report. Lines about requests the load generator cut off at the end of a run say nothing: they are dropped.
 */
export function relayOutput(child: ChildProcess, prefix: string, write: (line: string) => void, cap = 40, whole?: (line: string) => void): void {
  let lines = 0;
  const relay = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line.trim() || line.startsWith('{"bench":"ready"') || line.includes('RequestAbortedError')) continue;
      // every line, uncut, where the caller keeps whole logs (a fault run)
      whole?.(`${prefix} ${line}`);
      if (++lines <= cap) write(`${prefix} ${line.slice(0, 500)}`);
      else if (lines === cap + 1) write(`${prefix} (further output suppressed)`);
    }
  };
  child.stdout?.on('data', relay);
  child.stderr?.on('data', relay);
}

/**
 * Forks a bench TypeScript file (through tsx) with an IPC channel and waits for its `ready` message. Its
 * output is passed on to our stderr with a prefix, capped so a failing fleet cannot flood the report.
 */
export function startChild<Ready extends { type: string }>(
  file: string,
  env: Record<string, string>,
  opts: { prefix: string; timeoutMs: number; nodeFlags?: string[] },
): Promise<Child<Ready>> {
  const child = fork(path.join(ROOT, 'bench', file), [], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    execArgv: [...(opts.nodeFlags ?? []).filter((f) => f !== '--import' && f !== 'tsx'), '--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  relayOutput(child, opts.prefix, (line) => process.stderr.write(`${line}\n`));

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (ms = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (child.connected) child.send({ type: 'close' });
    else child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    await exited;
    clearTimeout(timer);
  };

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop(1000);
      reject(new Error(`${file} was not ready within ${opts.timeoutMs / 1000} s`));
    }, opts.timeoutMs);
    child.on('message', (message: { type: string; error?: string }) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve({ ready: message as unknown as Ready, process: child, stop });
      } else if (message.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(`${file} failed: ${message.error}`));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited with code ${code} before it was ready`));
    });
  });
}

/**
 * Sends a child a message with an `id` and waits for its answer of type `answer` with the same id; `who` names
 * the child in the timeout's error.
 */
export function askChild<From extends { type: string }, T extends From['type']>(
  child: Pick<Child<unknown>, 'process'>,
  message: { type: string; id: number },
  answer: T,
  timeoutMs: number,
  who: string,
): Promise<Extract<From, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.process.off('message', onMessage);
      reject(new Error(`${who} did not answer ${message.type} within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const onMessage = (m: From & { id?: number }) => {
      if (m.type === answer && m.id === message.id) {
        clearTimeout(timer);
        child.process.off('message', onMessage);
        resolve(m as Extract<From, { type: T }>);
      }
    };
    child.process.on('message', onMessage);
    child.process.send(message);
  });
}
