import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { MODULES, type ModuleName } from '@church/common';
import { relayOutput } from './child';

const ROOT = path.resolve(__dirname, '..', '..');

export interface DeploymentOptions {
  databaseUrls: Record<string, string>;
  redisUrl?: string;
  secrets: Record<string, string>;
  dataDir: string;
  /** print each process's output with this prefix (capped) */
  log: (line: string) => void;
  /** processes per module (default 1): replica r > 1 is named `<module>#<r>` and answers on a port of its own */
  replicas?: Partial<Record<ModuleName, number>>;
  /**
   * gateway processes (default 1). Gateway g sends each module to replica g mod n of it, as a k8s Service spreads
   * the connections of the gateway pods over the module's pods; the services call each other's first replica.
   */
  gateways?: number;
  /** more environment for every process of a deployable */
  env?: Partial<Record<ModuleName | 'gateway', Record<string, string>>>;
  /**
   * a worker process per module beside its API (`src/worker.ts`, as the worker Deployments run it), the APIs then
   * with RUN_WORKER=false; by default each API runs its own jobs
   */
  workers?: boolean;
  /** every line every process writes, uncut (the log above keeps the first 20 of each) */
  wholeLog?: (line: string) => void;
  /** how long the processes may take to become healthy (default 90 s; 29 processes on a loaded 2-core machine take longer) */
  readyTimeoutMs?: number;
}

/** One process of a deployment. */
export interface DeployedProcess {
  /** `messaging`, `messaging#2`, `gateway#2` */
  name: string;
  deployable: ModuleName | 'gateway';
  pid: number;
  url: string;
}

export interface Deployment {
  url: string;
  /** every gateway's address (`url` is the first) */
  urls: string[];
  pids: number[];
  processes: DeployedProcess[];
  /** waits until every process of the deployment has been nearly idle for 300 ms (at most 60 s); answers the wait */
  quiet(): Promise<number>;
  stop(): Promise<void>;
}

/** A port on loopback that nothing listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** user + system CPU time of a process in clock ticks, from /proc (Linux); undefined elsewhere. */
function cpuTicks(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** A deployable's Node flags (`<dir>/node-flags`, as docker/entrypoint.sh reads them): none when it has no file. */
function nodeFlags(dir: string): string[] {
  const file = path.join(ROOT, dir, 'node-flags');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
}

/**
 * The fleet as it is deployed: the gateway and each of the seven services in its own Node process, from the
 * same entry points and Node flags the containers run (`src/main.ts` of each deployable, through tsx), on the seeded
 * databases. Migrations are already applied by the seeding fleet, so no process migrates.
 */
export async function startDeployment(opts: DeploymentOptions): Promise<Deployment> {
  const ports = Object.fromEntries(await Promise.all([...MODULES, 'gateway' as const].map(async (m) => [m, await freePort()] as const))) as Record<
    ModuleName | 'gateway',
    number
  >;
  const urls = Object.fromEntries(MODULES.map((m) => [`${m.toUpperCase()}_URL`, `http://127.0.0.1:${ports[m]}`]));
  const common = { ...process.env, ...urls, NODE_ENV: 'production', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  const children: ChildProcess[] = [];
  const processes: DeployedProcess[] = [];
  // replica r of module m (r from 1; replica 1 is `ports[m]`)
  const replicaPorts = Object.fromEntries(MODULES.map((m) => [m, [ports[m]]])) as Record<ModuleName, number[]>;
  const taken = new Set(Object.values(ports));
  const anotherPort = async () => {
    let port = await freePort();
    while (taken.has(port)) port = await freePort();
    taken.add(port);
    return port;
  };
  for (const module of MODULES) for (let r = 1; r < (opts.replicas?.[module] ?? 1); r++) replicaPorts[module].push(await anotherPort());
  const gatewayPorts = [ports.gateway];
  for (let g = 1; g < (opts.gateways ?? 1); g++) gatewayPorts.push(await anotherPort());
  const start = (name: string, dir: string, env: Record<string, string | undefined>, entry = 'main') => {
    // BENCH_CPU_PROF=<dir>: each process writes a V8 CPU profile there when it stops (for finding hot spots).
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
    const child = spawn(process.execPath, [...profile, ...nodeFlags(dir), '--import', 'tsx', `${dir}/src/${entry}.ts`], { cwd: ROOT, env: { ...common, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    relayOutput(child, `[${name}]`, opts.log, 20, opts.wholeLog);
    children.push(child);
    const deployable = dir === 'gateway' ? 'gateway' : (dir.slice('services/'.length) as ModuleName);
    if (child.pid) processes.push({ name, deployable, pid: child.pid, url: `http://127.0.0.1:${env.PORT}` });
  };
  for (const module of MODULES) {
    const env = {
      ...opts.secrets,
      DATABASE_URL: opts.databaseUrls[module],
      REDIS_URL: opts.redisUrl ?? '',
      DATA_DIR: opts.dataDir,
      MIGRATE_ON_START: 'false',
      ...(opts.workers ? { RUN_WORKER: 'false' } : {}),
      ...opts.env?.[module],
    };
    replicaPorts[module].forEach((port, r) => start(r ? `${module}#${r + 1}` : module, `services/${module}`, { ...env, PORT: String(port) }));
    // as many workers as API replicas (the worker Deployment scales beside the API's)
    if (opts.workers) {
      for (let w = 0; w < (opts.replicas?.[module] ?? 1); w++) start(w ? `${module}-worker#${w + 1}` : `${module}-worker`, `services/${module}`, { ...env, PORT: String(await anotherPort()) }, 'worker');
    }
  }
  // each gateway's metrics on a port of its own (two on one machine would both want the default 9080)
  const metricsPorts: number[] = [];
  for (let g = 0; g < gatewayPorts.length; g++) metricsPorts.push(await anotherPort());
  gatewayPorts.forEach((port, g) => {
    // gateway g: replica g mod n of each module
    const spread = Object.fromEntries(MODULES.map((m) => [`${m.toUpperCase()}_URL`, `http://127.0.0.1:${replicaPorts[m][g % replicaPorts[m].length]}`]));
    start(g ? `gateway#${g + 1}` : 'gateway', 'gateway', { ...spread, PORT: String(port), METRICS_PORT: String(metricsPorts[g]), RATE_LIMIT_ENABLED: 'false', ...opts.env?.gateway });
  });
  const gatewayUrls = gatewayPorts.map((port) => `http://127.0.0.1:${port}`);
  const url = gatewayUrls[0]!;

  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 12_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  };

  // Ready when the gateway's aggregated health sees every service (each gateway's, when there are several).
  const readyMs = opts.readyTimeoutMs ?? 90_000;
  const deadline = Date.now() + readyMs;
  for (;;) {
    const exited = children.find((c) => c.exitCode !== null);
    if (exited) {
      await stop();
      throw new Error(`a deployment process exited with code ${exited.exitCode} while starting`);
    }
    const answers = await Promise.all(
      gatewayUrls.map((gateway) =>
        fetch(`${gateway}/health`)
          .then((r) => r.ok)
          .catch(() => false),
      ),
    );
    const ok = answers.every(Boolean);
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the deployment was not healthy within ${readyMs / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  const pids = children.map((c) => c.pid!).filter(Boolean);
  const total = () => pids.reduce((sum, pid) => sum + (cpuTicks(pid) ?? 0), 0);
  const quiet = async () => {
    const started = Date.now();
    if (cpuTicks(pids[0]!) === undefined) {
      await new Promise((r) => setTimeout(r, 1000));
      return Date.now() - started;
    }
    let calm = 0;
    let last = total();
    while (calm < 3 && Date.now() - started < 60_000) {
      await new Promise((r) => setTimeout(r, 100));
      const now = total();
      // clock ticks are 10 ms: at most one tick in 100 ms across all processes is idle (timers, metrics)
      calm = now - last <= 1 ? calm + 1 : 0;
      last = now;
    }
    return Date.now() - started;
  };
  return { url, urls: gatewayUrls, pids, processes, quiet, stop };
}
