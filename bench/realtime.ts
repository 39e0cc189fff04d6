import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createTokenSigner, PERMISSIONS, permissionKey, type ApiName } from '@church/auth';
import { askChild, startChild, type Child } from './lib/child';
import { prepareDatabases, redisReachable } from './lib/databases';
import { startDeployment, type Deployment } from './lib/deployment';
import { fixtures } from './lib/fixtures';
import { runLoad, type LoadResult } from './lib/load';
import { messagingSeeded, resetMessaging, seedMessaging } from './seed/messaging';

/*
 * The real-time bench (issue 16): WebSocket sockets on one live-stream chat across two messaging replicas that fan
 * out over Redis pub/sub, and messages posted through the gateway at a fixed rate; every message must reach every
 * socket, and the time from send to receipt is measured at every socket.
 *
 *   npx tsx bench/realtime.ts [--ws=direct|gateway --sockets=1000 --rate=200 --duration=10 --warmup=2 --connections=20 --send-duration=10]
 *
 * Shape: the deployment of `pnpm bench` (each service and the gateway in its own process, on the seeded bench_*
 * databases, Redis on) with two messaging replicas and two gateways, gateway g sending /messaging to replica g: the
 * way a k8s Service spreads the gateway pods' connections over the messaging pods (one gateway cannot spread: it
 * has one upstream per module). The sockets are held by two receiver processes (this file, forked), receiver g's
 * on replica g, so each replica holds half of them; they speak the WebSocket protocol on raw TCP (server frames
 * are not masked), which keeps the load generator's CPU per frame small on a machine it shares with the fleet.
 *
 * Where the sockets connect (`--ws`): `direct` (the default) opens them on the messaging replicas themselves, as
 * deployed: the Ingress sends the path `/messaging/ws` straight to the messaging Service (the upgrade needs nothing
 * of the gateway: it is public and the gateway only pipes its bytes; a socket proves itself when it registers),
 * and everything else to the gateway. `gateway` opens them through the gateways, which then pipe every frame (a
 * read and a write per socket per flush in each of them), as the embedded launcher runs it. Registrations and
 * sends go through the gateways either way.
 *
 * The sender (this process) posts `POST /messaging/messages/send` open loop, alternating gateways, each message's
 * content `rt:<seq>:<send time>` on the monotonic clock every process of the machine shares (`process.hrtime`).
 * A receiver stamps each read chunk when it arrives. The warm-up's messages are delivered and checked but their
 * latencies are left out of the percentiles. Then a closed-loop autocannon run measures the send route alone (a
 * second live chat that no socket watches, through one gateway to one replica, like the other scenarios).
 */

type WsTopology = 'direct' | 'gateway';

interface Options {
  /** where the WebSockets connect: the messaging replicas (as deployed) or the gateways */
  ws: WsTopology;
  sockets: number;
  rate: number;
  duration: number;
  warmup: number;
  connections: number;
  sendDuration: number;
  /** messaging's REALTIME_FLUSH_MS (its default when absent) */
  flushMs?: number;
  databaseUrl: string;
  redisUrl: string;
}

const USAGE = `npx tsx bench/realtime.ts [options]
  --ws=direct           where the sockets connect: direct (the messaging replicas, as the Ingress routes
                        /messaging/ws in production; the target is judged on it) or gateway (through the gateways)
  --sockets=1000        WebSocket sockets on the live chat, half on each messaging replica
  --rate=200            messages per second, open loop
  --duration=10         seconds of measured sending (after the warm-up)
  --warmup=2            seconds of sending first whose latencies are not counted (deliveries are)
  --connections=20      connections of the closed-loop run of the send route
  --send-duration=10    seconds of that run (after a warm-up of 3 s)
  --flush-ms=N          messaging's REALTIME_FLUSH_MS for the run (default: the service's own)
  --database-url=URL    admin URL of the PostgreSQL server (default $BENCH_DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres)
  --redis-url=URL       default $BENCH_REDIS_URL or redis://127.0.0.1:6379`;

function parseOptions(argv: string[]): Options {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unexpected argument ${arg}\n${USAGE}`);
    flags.set(match[1]!, match[2] ?? 'true');
  }
  const known = ['ws', 'sockets', 'rate', 'duration', 'warmup', 'connections', 'send-duration', 'flush-ms', 'database-url', 'redis-url', 'help'];
  for (const name of flags.keys()) if (!known.includes(name)) throw new Error(`unknown option --${name}\n${USAGE}`);
  if (flags.has('help')) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name: string, fallback: number, min: number) => {
    const value = Number(flags.get(name) ?? fallback);
    if (!Number.isFinite(value) || value < min) throw new Error(`--${name} must be a number ≥ ${min}`);
    return value;
  };
  const ws = flags.get('ws') ?? 'direct';
  if (ws !== 'direct' && ws !== 'gateway') throw new Error(`--ws must be direct or gateway\n${USAGE}`);
  return {
    ws,
    sockets: Math.floor(number('sockets', 1000, 2)),
    rate: number('rate', 200, 1),
    duration: number('duration', 10, 1),
    warmup: number('warmup', 2, 0),
    connections: Math.floor(number('connections', 20, 1)),
    sendDuration: number('send-duration', 10, 1),
    flushMs: flags.has('flush-ms') ? number('flush-ms', 0, 0) : undefined,
    databaseUrl: flags.get('database-url') ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: flags.get('redis-url') ?? process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Milliseconds on the monotonic clock (CLOCK_MONOTONIC: the same in every process of the machine). */
const nowMs = () => {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
};
const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;
function percentile(sorted: Float64Array | number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0;
}

// ---------------------------------------------------------------------------------------------------------------
// The receiver: holds sockets on one gateway, registers them, records every message it reads.

interface ReceiverConfig {
  /** where the sockets register (HTTP) */
  gateway: string;
  /** where the sockets connect: the gateway or a messaging replica */
  ws: string;
  count: number;
  /** names the sockets' display names apart across receivers */
  first: number;
  churchId: string;
  conversationId: string;
  /** most sequence numbers the sender can use (size of the record) */
  maxSeq: number;
}

type ToReceiver = { type: 'progress'; id: number } | { type: 'collect'; id: number; ok: number[]; warmupSeqs: number } | { type: 'close' };
type FromReceiver =
  | { type: 'ready'; sockets: number; openMs: number; registerMs: number; fds: number }
  | { type: 'progress'; id: number; received: number; closed: number }
  | { type: 'collected'; id: number; latencies: number[]; missing: number; duplicates: number; received: number; otherFrames: number; closed: number; reads: number }
  | { type: 'failed'; error: string };

const MARK = Buffer.from('"content":"rt:');

/** A WebSocket client on a raw TCP socket: the handshake, unmasked server frames, pong and close answered. */
class RawSocket {
  /** TCP reads after the handshakes, all sockets together */
  static reads = 0;
  id = '';
  closed = false;
  private rest: Buffer | null = null;
  private fragments: Buffer[] = [];

  constructor(
    readonly socket: net.Socket,
    private readonly onText: (payload: Buffer, at: number) => void,
  ) {}

  /**
   * Where every socket of a receiver reads into (`onread`): no buffer per read and no stream machinery between the
   * kernel and the frame parser, which handles each read at once and copies only a partial frame it keeps.
   */
  private static readonly inbox = Buffer.allocUnsafe(256 * 1024);

  static open(url: URL, onText: (raw: RawSocket, payload: Buffer, at: number) => void): Promise<RawSocket> {
    return new Promise((resolve, reject) => {
      let raw: RawSocket | undefined;
      let head = Buffer.alloc(0);
      let upgraded = false;
      const onRead = (n: number) => {
        const at = nowMs();
        const chunk = RawSocket.inbox.subarray(0, n);
        if (upgraded) {
          RawSocket.reads++;
          return raw!.read(chunk, at);
        }
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        const status = head.subarray(0, head.indexOf('\r\n')).toString();
        if (!/^HTTP\/1\.1 101/.test(status)) return fail(new Error(`handshake answered ${status}`));
        upgraded = true;
        socket.off('error', fail);
        socket.on('error', () => undefined);
        raw = new RawSocket(socket, (payload, when) => {
          if (!raw!.id) {
            // the first frame is {action: "socketId", data: <id>}
            const hello = JSON.parse(payload.toString()) as { action: string; data: string };
            if (hello.action !== 'socketId') return fail(new Error(`first frame was ${hello.action}`));
            raw!.id = hello.data;
            clearTimeout(timer);
            return resolve(raw!);
          }
          onText(raw!, payload, when);
        });
        socket.on('close', () => (raw!.closed = true));
        if (head.length > end + 4) raw.read(head.subarray(end + 4), at);
      };
      const socket = net.connect({ port: Number(url.port), host: url.hostname, noDelay: true, onread: {
          buffer: RawSocket.inbox,
          callback: (n) => {
            onRead(n);
            return true; // keep reading
          },
        },
      });
      const timer = setTimeout(() => fail(new Error('no WebSocket handshake within 30 s')), 30_000);
      const fail = (err: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(err);
      };
      socket.once('error', fail);
      socket.on('connect', () => {
        const key = randomBytes(16).toString('base64');
        socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      });
    });
  }

  private read(chunk: Buffer, at: number) {
    let buf = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    this.rest = null;
    for (;;) {
      if (buf.length < 2) break;
      const fin = (buf[0]! & 0x80) !== 0;
      const opcode = buf[0]! & 0x0f;
      let length = buf[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buf.length < 4) break;
        length = buf.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buf.length < 10) break;
        length = Number(buf.readBigUInt64BE(2));
        offset = 10;
      }
      if (buf[1]! & 0x80) offset += 4; // a server never masks; skip a key all the same
      if (buf.length < offset + length) break;
      const payload = buf.subarray(offset, offset + length);
      buf = buf.subarray(offset + length);
      if (opcode === 0x9) this.control(0xa, payload);
      else if (opcode === 0x8) {
        this.control(0x8, payload.subarray(0, 2));
        this.socket.end();
      } else if (opcode === 0x1 || opcode === 0x0) {
        if (!fin) this.fragments.push(Buffer.from(payload));
        else if (this.fragments.length) {
          const whole = Buffer.concat([...this.fragments, payload]);
          this.fragments = [];
          this.onText(whole, at);
        } else this.onText(payload, at);
      }
    }
    if (buf.length) this.rest = Buffer.from(buf);
  }

  /** a masked control frame (client frames must be masked; a zero key leaves the payload as it is) */
  private control(opcode: number, payload: Buffer) {
    if (this.socket.destroyed) return;
    this.socket.write(Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length, 0, 0, 0, 0]), payload]));
  }
}

async function receiver() {
  const config = JSON.parse(process.env.BENCH_RT_CONFIG ?? '{}') as ReceiverConfig;
  const send = (message: FromReceiver) => process.send?.(message);
  const gateway = new URL(config.gateway);
  const wsUrl = new URL('/messaging/ws', config.ws);
  // latency of message `seq` at socket `k`: at[k * maxSeq + seq] (NaN until it arrives)
  const at = new Float64Array(config.count * config.maxSeq).fill(Number.NaN);
  let received = 0;
  let duplicates = 0;
  let otherFrames = 0;
  const sockets: RawSocket[] = [];
  const index = new Map<RawSocket, number>();
  const onText = (raw: RawSocket, payload: Buffer, when: number) => {
    const mark = payload.indexOf(MARK);
    if (mark < 0) return void otherFrames++;
    // rt:<seq>:<ms>"
    let i = mark + MARK.length;
    let seq = 0;
    while (payload[i] !== 0x3a) seq = seq * 10 + (payload[i++]! - 48);
    const end = payload.indexOf(0x22, ++i);
    const sentAt = Number(payload.toString('latin1', i, end));
    const k = index.get(raw)!;
    if (seq >= config.maxSeq) return void otherFrames++;
    const slot = k * config.maxSeq + seq;
    if (!Number.isNaN(at[slot]!)) return void duplicates++;
    at[slot] = when - sentAt;
    received++;
  };

  const opening = nowMs();
  const parallel = async <T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> => {
    const out: T[] = new Array(n);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(width, n) }, async () => {
        while (next < n) {
          const i = next++;
          out[i] = await task(i);
        }
      }),
    );
    return out;
  };
  await parallel(config.count, 50, async (i) => {
    const raw = await RawSocket.open(wsUrl, onText);
    index.set(raw, i);
    sockets[i] = raw;
  });
  const openMs = nowMs() - opening;

  // Each socket registers itself, as a browser would: viewers with twenty display names between them.
  const registering = nowMs();
  await parallel(config.count, 10, async (i) => {
    const body = JSON.stringify({ churchId: config.churchId, conversationId: config.conversationId, socketId: sockets[i]!.id, displayName: `Viewer ${(config.first + i) % 20}` });
    const res = await fetch(new URL('/messaging/connections', gateway), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    if (res.status !== 200) throw new Error(`registration answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    await res.arrayBuffer();
  });
  const registerMs = nowMs() - registering;
  const readsAtReady = RawSocket.reads;
  send({ type: 'ready', sockets: sockets.length, openMs: round(openMs), registerMs: round(registerMs), fds: fdCount(process.pid) });

  const closedCount = () => sockets.filter((s) => s.closed).length;
  process.on('message', (message: ToReceiver) => {
    if (message.type === 'close') {
      for (const s of sockets) s.socket.destroy();
      process.exit(0);
    }
    if (message.type === 'progress') send({ type: 'progress', id: message.id, received, closed: closedCount() });
    if (message.type === 'collect') {
      let missing = 0;
      const latencies: number[] = [];
      for (let k = 0; k < sockets.length; k++) {
        for (const seq of message.ok) {
          const v = at[k * config.maxSeq + seq]!;
          if (Number.isNaN(v)) missing++;
          else if (seq >= message.warmupSeqs) latencies.push(round(v, 3));
        }
      }
      send({ type: 'collected', id: message.id, latencies, missing, duplicates, received, otherFrames, closed: closedCount(), reads: RawSocket.reads - readsAtReady });
    }
  });
  process.on('disconnect', () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------------------------
// Process facts from /proc (Linux).

function fdCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

function memory(pid: number): { rssMb: number; peakMb: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return { rssMb: round(kb('VmRSS') / 1024, 1), peakMb: round(kb('VmHWM') / 1024, 1) };
  } catch {
    return { rssMb: 0, peakMb: 0 };
  }
}

/** user + system CPU seconds of a process */
function cpuSeconds(pid: number): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/** user and system (kernel: socket writes and reads) CPU seconds of a process */
function cpuTimes(pid: number): { user: number; system: number } {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return { user: 0, system: 0 };
  }
}

/** seconds a process's threads spent runnable but waiting for a CPU (/proc/<pid>/task/<tid>/schedstat) */
function runQueueSeconds(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1] ?? 0);
    return ns / 1e9;
  } catch {
    return 0;
  }
}

/** pids of processes whose command name is `name` (redis-server, postgres) */
function pidsNamed(name: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) out.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The open file limit: every socket is a descriptor in a receiver, two in a gateway (client and upstream side)
// and one in a replica. Node cannot raise its own limit, so the script runs itself again under `ulimit -Sn`.

function fileLimit(): { soft: number; hard: number } {
  const read = (flag: string) => {
    const out = execFileSync('/bin/sh', ['-c', `ulimit ${flag}`], { encoding: 'utf8' }).trim();
    return out === 'unlimited' ? Number.POSITIVE_INFINITY : Number(out);
  };
  return { soft: read('-Sn'), hard: read('-Hn') };
}

function ensureFileLimit(needed: number): { soft: number; hard: number; raised: boolean } | 'rerun' {
  const limit = fileLimit();
  if (limit.soft >= needed) return { ...limit, raised: process.env.BENCH_RT_RAISED === '1' };
  if (process.env.BENCH_RT_RAISED === '1' || limit.hard < needed) throw new Error(`open file limit ${limit.soft} (hard ${limit.hard}) is below the ${needed} the sockets need: raise ulimit -n`);
  const want = Math.min(limit.hard, Math.max(needed, 65_536));
  log(`open file limit ${limit.soft} < ${needed}: running again under ulimit -Sn ${want}`);
  const child = spawn('/bin/sh', ['-c', `ulimit -Sn ${want} && exec "$0" "$@"`, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_RT_RAISED: '1' },
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return 'rerun';
}

// ---------------------------------------------------------------------------------------------------------------
// The main process: databases, deployment, receivers, sender, report.

function askReceiver<T extends FromReceiver['type']>(child: Child<{ type: 'ready' }>, message: ToReceiver & { id: number }, answer: T, timeoutMs: number): Promise<Extract<FromReceiver, { type: T }>> {
  return askChild<FromReceiver, T>(child, message, answer, timeoutMs, 'a receiver');
}

/** A token of bench user 0 (a Domain Admin of the big church) signed with the deployment's secret. */
function benchToken(secret: string): string {
  const permissions: Partial<Record<ApiName, string[]>> = {};
  for (const p of PERMISSIONS) (permissions[p.apiName] ??= []).push(permissionKey(p.contentType, p.action));
  return createTokenSigner(secret)({
    id: fixtures.userId(0),
    email: fixtures.userEmail(0),
    churchId: fixtures.churchId,
    personId: fixtures.personId(0),
    membershipStatus: 'Member',
    permissions,
    leaderGroupIds: [],
  });
}

/** Applies messaging's migrations to its bench database (the deployment's processes do not migrate). */
async function migrateMessaging(databaseUrl: string, secrets: Record<string, string>): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/messaging/src/migrate.ts'], {
      cwd: path.resolve(__dirname, '..'),
      env: { ...process.env, ...secrets, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`messaging migrations failed (${code}): ${output.slice(-1000)}`));
    });
  });
}

interface Report {
  startedAt: string;
  options: Omit<Options, 'databaseUrl' | 'redisUrl'>;
  machine: { cpus: number; model: string; node: string; memoryGb: number };
  files: { soft: number; hard: number; raised: boolean; ports: string };
  sockets: { perReplica: number[]; openMs: number[]; registerMs: number[]; registry: number[]; fds: number[] };
  fanout: {
    sent: number;
    ok: number;
    non2xx: number;
    statuses: Record<string, number>;
    warmupSeqs: number;
    expected: number;
    received: number;
    /** TCP reads of the receivers over the send phase */
    reads: number;
    missing: number;
    duplicates: number;
    closed: number;
    p50: number;
    p99: number;
    max: number;
    samples: number;
    achievedRate: number;
    senderLagMaxMs: number;
    sendAnswerP50: number;
    sendAnswerP99: number;
    sendSeconds: number;
    toStampP50: number;
    toStampP99: number;
    fromStampP50: number;
    fromStampP99: number;
    drainMs: number;
  };
  sendRoute?: LoadResult;
  /** states of messaging's database connections sampled while sending (share of samples, %) */
  pgWaits: Array<{ what: string; share: number }>;
  /** CPU milliseconds per message sent, over the send phase and its drain */
  cpuPerMessage?: { fleetMs: number; parts: Record<string, number>; generatorMs: number };
  loadAverage: number[];
  processes: Array<{ name: string; pid: number; rssMb: number; peakMb: number; cpuS: number; systemS: number; waitS: number; fds: number }>;
  notes: string[];
}

async function main() {
  const opts = parseOptions(process.argv.slice(2));
  const perReplica = [Math.ceil(opts.sockets / 2), Math.floor(opts.sockets / 2)];
  // a gateway piping sockets holds both ends of each; a replica (or a receiver) one; leave room for pools, pipes, files
  const fdsNeeded = (opts.ws === 'gateway' ? 2 : 1) * perReplica[0]! + 1024;
  const limit = ensureFileLimit(fdsNeeded);
  if (limit === 'rerun') return 'rerun' as const;
  const started = Date.now();
  // The whole run must end by itself: a watchdog cleans up and fails it.
  const budgetMs = (300 + 3 * (opts.warmup + opts.duration) + 2 * (opts.sendDuration + 3)) * 1000;
  const cleanups: Array<() => Promise<void> | void> = [];
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const c of cleanups.reverse()) await Promise.resolve(c()).catch((err: unknown) => log(`cleanup: ${String(err)}`));
    })());
  const watchdog = setTimeout(() => {
    log(`realtime bench: over its ${budgetMs / 1000} s budget, stopping`);
    void cleanup().finally(() => process.exit(1));
  }, budgetMs);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void cleanup().finally(() => process.exit(1)));

  const ports = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const cpus = os.cpus();
  const report: Report = {
    startedAt: new Date().toISOString(),
    options: { ws: opts.ws, sockets: opts.sockets, rate: opts.rate, duration: opts.duration, warmup: opts.warmup, connections: opts.connections, sendDuration: opts.sendDuration, flushMs: opts.flushMs },
    machine: { cpus: cpus.length, model: cpus[0]?.model.trim() ?? 'unknown', node: process.version, memoryGb: Math.round(os.totalmem() / 2 ** 30) },
    files: {
      ...limit,
      ports:
        opts.ws === 'gateway'
          ? `${opts.sockets} client sockets (${perReplica.join(' + ')}) to 2 gateway ports and as many gateway→replica connections: ${2 * opts.sockets} loopback ephemeral ports of ${ports[1]! - ports[0]! + 1} (${ports[0]}–${ports[1]})`
          : `${opts.sockets} client sockets (${perReplica.join(' + ')}) to the 2 messaging replicas' ports: ${opts.sockets} loopback ephemeral ports of ${ports[1]! - ports[0]! + 1} (${ports[0]}–${ports[1]})`,
    },
    sockets: { perReplica, openMs: [], registerMs: [], registry: [], fds: [] },
    fanout: {} as Report['fanout'],
    pgWaits: [],
    loadAverage: [],
    processes: [],
    notes: [],
  };
  log(`open files: soft limit ${limit.soft}, hard ${limit.hard}${limit.raised ? ' (raised for this run)' : ''}; needed about ${fdsNeeded} in a ${opts.ws === 'gateway' ? 'gateway' : 'replica'}`);
  log(`ports: ${report.files.ports}`);

  try {
    if (!(await redisReachable(opts.redisUrl))) throw new Error(`Redis does not answer at ${opts.redisUrl}: the fan-out across replicas needs it (--redis-url)`);
    const databaseUrls = await prepareDatabases(opts.databaseUrl, true);
    const secrets = { JWT_SECRET: randomBytes(32).toString('base64url'), INTERNAL_SECRET: randomBytes(32).toString('base64url'), ENCRYPTION_KEY: randomBytes(32).toString('base64') };

    // The seeded databases of `pnpm bench`, with messaging migrated and seeded here if it is not yet.
    const membership = new Client({ connectionString: databaseUrls.membership });
    await membership.connect();
    const seeded = await membership.query('select 1 from churches where id = $1', [fixtures.churchId]).catch(() => ({ rowCount: 0 }));
    await membership.end();
    if (!seeded.rowCount) throw new Error('bench_membership holds no seed: run `pnpm bench` once first (it seeds the bench_* databases)');
    log('migrating bench_messaging ...');
    await migrateMessaging(databaseUrls.messaging!, secrets);
    const db = new Client({ connectionString: databaseUrls.messaging });
    await db.connect();
    try {
      if (await messagingSeeded(db, fixtures.churchId)) await resetMessaging(db, fixtures.churchId);
      else {
        log('seeding bench_messaging (notifications, live chats) ...');
        await db.query('begin');
        await seedMessaging(db).catch(async (err: unknown) => {
          await db.query('rollback');
          throw err;
        });
        await db.query('commit');
      }
      await db.query('vacuum analyze conversations');
      await db.query('vacuum analyze messages');
    } finally {
      await db.end();
    }

    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'church-realtime-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    log('starting the deployment: the services, two messaging replicas, two gateways ...');
    const deployedAt = new Date();
    const deployment: Deployment = await startDeployment({
      databaseUrls,
      redisUrl: opts.redisUrl,
      secrets,
      dataDir,
      log,
      replicas: { messaging: 2 },
      gateways: 2,
      // a registry and bus of this run's own on the shared Redis
      env: { messaging: { REALTIME_PREFIX: `bench:rt:${randomBytes(4).toString('hex')}:`, ...(opts.flushMs !== undefined ? { REALTIME_FLUSH_MS: String(opts.flushMs) } : {}) } },
    });
    cleanups.push(() => deployment.stop());
    const replicaOf = (g: number) => deployment.processes.filter((p) => p.deployable === 'messaging')[g]!;
    log(`gateways ${deployment.urls.join(', ')} → messaging ${replicaOf(0).url}, ${replicaOf(1).url}`);

    const token = benchToken(secrets.JWT_SECRET);
    const churchId = fixtures.churchId;
    const conversationId = fixtures.liveConversationId(0);
    const warmupSeqs = Math.round(opts.rate * opts.warmup);
    const total = warmupSeqs + Math.round(opts.rate * opts.duration);

    // Receivers: one per gateway, so each replica holds its half of the sockets.
    log(`opening ${opts.sockets} sockets (${opts.ws === 'direct' ? 'on the messaging replicas' : 'through the gateways'}) and registering them on the live chat ...`);
    const receivers = await Promise.all(
      [0, 1].map((g) => {
        const ws = opts.ws === 'direct' ? replicaOf(g).url : deployment.urls[g]!;
        const config: ReceiverConfig = { gateway: deployment.urls[g]!, ws, count: perReplica[g]!, first: g * perReplica[0]!, churchId, conversationId, maxSeq: total };
        return startChild<Extract<FromReceiver, { type: 'ready' }>>('realtime.ts', { BENCH_RT_ROLE: 'receiver', BENCH_RT_CONFIG: JSON.stringify(config) }, {
          prefix: `[receiver ${g + 1}]`,
          timeoutMs: 180_000,
          // BENCH_CPU_PROF profiles the receivers too, as it does the deployment's processes
          nodeFlags: process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [],
        });
      }),
    );
    for (const r of receivers) cleanups.push(() => r.stop(5000));
    for (const r of receivers) {
      report.sockets.openMs.push(r.ready.openMs);
      report.sockets.registerMs.push(r.ready.registerMs);
      report.sockets.fds.push(r.ready.fds);
    }
    // The registry is shared: either replica (through its gateway) lists every registration.
    for (const gateway of deployment.urls) {
      const res = await fetch(`${gateway}/messaging/connections/${churchId}/${conversationId}`);
      const list = (await res.json()) as unknown[];
      report.sockets.registry.push(Array.isArray(list) ? list.length : -1);
    }
    log(`registered: ${report.sockets.registry.join(' and ')} connections listed through the two gateways; waiting for the attendance broadcasts to settle ...`);
    if (report.sockets.registry.some((n) => n !== opts.sockets)) throw new Error(`the registry lists ${report.sockets.registry.join('/')} connections, not ${opts.sockets}`);
    await deployment.quiet();

    // messaging's PostgreSQL backends (the ones this deployment opened) count with the fleet's CPU
    const sampler = new Client({ connectionString: databaseUrls.messaging });
    await sampler.connect();
    cleanups.push(() => sampler.end());
    const backends = async () =>
      (
        await sampler.query<{ pid: number }>(
          `select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid() and backend_start >= $1`,
          [deployedAt],
        )
      ).rows.map((r) => r.pid);
    const pgBefore = new Map((await backends()).map((pid) => [pid, cpuSeconds(pid)]));

    // Open-loop sending: message seq is due at start + seq / rate, posted through gateway seq mod 2.
    const watched = [...deployment.processes.map((p) => ({ name: p.name, pid: p.pid })), ...receivers.map((r, g) => ({ name: `receiver ${g + 1}`, pid: r.process.pid! })), { name: 'sender (this)', pid: process.pid }];
    const redisPid = pidsNamed('redis-server')[0];
    if (redisPid) watched.push({ name: 'redis-server', pid: redisPid });
    const cpuBefore = new Map(watched.map((p) => [p.pid, cpuTimes(p.pid)]));
    const waitBefore = new Map(watched.map((p) => [p.pid, runQueueSeconds(p.pid)]));
    log(`sending ${total} messages at ${opts.rate}/s (${opts.warmup} s warm-up, ${opts.duration} s measured) ...`);
    const statuses: Record<string, number> = {};
    const ok: number[] = [];
    const answerMs: number[] = [];
    let lagMax = 0;
    const pending: Array<Promise<void>> = [];
    // node:http with keep-alive: a few times less CPU per request than fetch, on the cores the fleet uses
    const agent = new http.Agent({ keepAlive: true });
    cleanups.push(() => agent.destroy());
    const post = (gateway: URL, body: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request(
          { host: gateway.hostname, port: gateway.port, path: '/messaging/messages/send', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const gateways = deployment.urls.map((u) => new URL(u));
    // where a send spends its time: before the database stamps the message (`timeSent`: the gateway, the service's
    // event loop, the pool), and after it (the insert's commit, the publish, the way back); wall clock, ms precision
    const toStamp: number[] = [];
    const fromStamp: number[] = [];
    const sendOne = async (seq: number) => {
      const sentAt = nowMs();
      const wallSentAt = Date.now();
      const body = JSON.stringify({ churchId, conversationId, displayName: 'Bench host', content: `rt:${seq}:${sentAt.toFixed(3)}` });
      try {
        const { status, text } = await post(gateways[seq % 2]!, body);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status >= 200 && status < 300) ok.push(seq);
        if (seq >= warmupSeqs) answerMs.push(nowMs() - sentAt);
        const stamped = status === 200 ? Date.parse((JSON.parse(text) as Array<{ timeSent: string }>)[0]?.timeSent ?? '') : Number.NaN;
        if (seq >= warmupSeqs && Number.isFinite(stamped)) {
          toStamp.push(stamped - wallSentAt);
          fromStamp.push(Date.now() - stamped);
        }
      } catch (err) {
        statuses.error = (statuses.error ?? 0) + 1;
        if (statuses.error <= 3) log(`send ${seq} failed: ${String(err)}`);
      }
    };
    // What messaging's database connections do meanwhile (sampled every 50 ms): waiting for us, for locks, for disk.
    const waits = new Map<string, number>();
    let sampling = true;
    const sampled = (async () => {
      while (sampling) {
        const { rows } = await sampler.query<{ what: string }>(
          `select state || ' ' || coalesce(wait_event_type || ':' || wait_event, 'on CPU') || ' ' || left(regexp_replace(query, '\\s+', ' ', 'g'), 50) as what
             from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`,
        );
        for (const r of rows) waits.set(r.what, (waits.get(r.what) ?? 0) + 1);
        await sleep(50);
      }
    })();
    report.loadAverage = os.loadavg();
    const t0 = nowMs();
    let seq = 0;
    while (seq < total) {
      const now = nowMs();
      while (seq < total && t0 + (seq * 1000) / opts.rate <= now) {
        lagMax = Math.max(lagMax, now - (t0 + (seq * 1000) / opts.rate));
        pending.push(sendOne(seq++));
      }
      if (seq < total) await sleep(Math.max(0, t0 + (seq * 1000) / opts.rate - nowMs()));
    }
    await Promise.all(pending);
    const sendSeconds = (nowMs() - t0) / 1000;
    sampling = false;
    await sampled;
    const samples = [...waits.values()].reduce((a, b) => a + b, 0);
    report.pgWaits = [...waits]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([what, n]) => ({ what, share: round((100 * n) / samples, 1) }));

    // Deliveries still in flight: wait until every socket has every message, or nothing more arrives for 3 s.
    const expected = ok.length * opts.sockets;
    const draining = nowMs();
    let last = -1;
    let still = nowMs();
    let id = 1;
    for (;;) {
      const progress = await Promise.all(receivers.map((r) => askReceiver(r, { type: 'progress', id: id++ }, 'progress', 30_000)));
      const got = progress.reduce((s, p) => s + p.received, 0);
      if (got >= expected) break;
      if (got !== last) {
        last = got;
        still = nowMs();
      } else if (nowMs() - still > 3000 || nowMs() - draining > 30_000) break;
      await sleep(100);
    }
    const drainMs = nowMs() - draining;
    // for BENCH_CPU_PROF profiles: V8 stamps samples on the same monotonic clock (µs)
    log(`send phase and drain: monotonic ${Math.round(t0)}–${Math.round(nowMs())} ms`);
    const pgCpu = (await backends()).reduce((sum, pid) => sum + cpuSeconds(pid) - (pgBefore.get(pid) ?? 0), 0);
    for (const p of watched) {
      const now = cpuTimes(p.pid);
      const before = cpuBefore.get(p.pid) ?? { user: 0, system: 0 };
      const cpu = now.user + now.system - before.user - before.system;
      const waited = runQueueSeconds(p.pid) - (waitBefore.get(p.pid) ?? 0);
      report.processes.push({ name: p.name, pid: p.pid, ...memory(p.pid), cpuS: round(cpu, 2), systemS: round(now.system - before.system, 2), waitS: round(waited, 2), fds: fdCount(p.pid) });
    }
    // CPU per message: the fleet's part (what a deployment pays) and the load generator's (the bench's own)
    const cpuOf = (test: (name: string) => boolean) => report.processes.filter((p) => test(p.name)).reduce((sum, p) => sum + p.cpuS, 0);
    const fleetParts = {
      messaging: cpuOf((n) => n.startsWith('messaging')),
      gateways: cpuOf((n) => n.startsWith('gateway')),
      redis: cpuOf((n) => n === 'redis-server'),
      postgres: pgCpu,
    };
    const generator = cpuOf((n) => n.startsWith('receiver') || n.startsWith('sender'));
    const perMessage = (cpuS: number) => round((1000 * cpuS) / Math.max(1, ok.length), 2);
    report.cpuPerMessage = {
      fleetMs: perMessage(Object.values(fleetParts).reduce((a, b) => a + b, 0)),
      parts: Object.fromEntries(Object.entries(fleetParts).map(([k, v]) => [k, perMessage(v)])),
      generatorMs: perMessage(generator),
    };
    const collected = await Promise.all(receivers.map((r) => askReceiver(r, { type: 'collect', id: id++, ok, warmupSeqs }, 'collected', 120_000)));
    const all = new Float64Array(collected.reduce((s, c) => s + c.latencies.length, 0));
    let o = 0;
    for (const c of collected) for (const v of c.latencies) all[o++] = v;
    all.sort();
    answerMs.sort((a, b) => a - b);
    report.fanout = {
      sent: total,
      ok: ok.length,
      non2xx: total - ok.length,
      statuses,
      warmupSeqs,
      expected,
      received: collected.reduce((s, c) => s + c.received, 0),
      reads: collected.reduce((s, c) => s + c.reads, 0),
      missing: collected.reduce((s, c) => s + c.missing, 0),
      duplicates: collected.reduce((s, c) => s + c.duplicates, 0),
      closed: collected.reduce((s, c) => s + c.closed, 0),
      p50: round(percentile(all, 0.5)),
      p99: round(percentile(all, 0.99)),
      max: round(all.length ? all[all.length - 1]! : 0),
      samples: all.length,
      achievedRate: round(total / sendSeconds, 1),
      senderLagMaxMs: round(lagMax),
      sendAnswerP50: round(percentile(answerMs, 0.5)),
      sendAnswerP99: round(percentile(answerMs, 0.99)),
      toStampP50: percentile(toStamp.sort((a, b) => a - b), 0.5),
      toStampP99: percentile(toStamp, 0.99),
      fromStampP50: percentile(fromStamp.sort((a, b) => a - b), 0.5),
      fromStampP99: percentile(fromStamp, 0.99),
      drainMs: round(drainMs),
      sendSeconds: round(sendSeconds + drainMs / 1000, 1),
    };
    log(`fan-out: ${report.fanout.received}/${expected} delivered, missing ${report.fanout.missing}, p50 ${report.fanout.p50} ms, p99 ${report.fanout.p99} ms, max ${report.fanout.max} ms`);

    // The send route alone: closed loop on the other live chat (no socket watches it), one gateway, one replica.
    await deployment.quiet();
    log(`send route: closed loop, ${opts.connections} connections, ${opts.sendDuration} s (after 3 s of warm-up) ...`);
    report.sendRoute = await runLoad(
      {
        method: 'POST',
        path: '/messaging/messages/send',
        token,
        body: JSON.stringify({ churchId, conversationId: fixtures.liveConversationId(1), displayName: 'Bench host', content: 'Amen, and welcome everyone watching' }),
      },
      { url: deployment.url, connections: opts.connections, duration: opts.sendDuration, warmup: 3 },
    );
    log(`send route: ${report.sendRoute.rps} req/s, p50 ${report.sendRoute.p50} ms, p99 ${report.sendRoute.p99} ms, non-2xx ${report.sendRoute.non2xx}`);
  } finally {
    await cleanup();
    clearTimeout(watchdog);
  }

  const dir = path.join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'realtime-postgres.md');
  let previous = '';
  try {
    previous = readFileSync(file, 'utf8');
  } catch {
    /* the first run */
  }
  const section = markdown(report, (Date.now() - started) / 1000);
  writeFileSync(file, resultsFile(previous, report, section));
  process.stdout.write(`\n${section}\nwritten: ${path.relative(process.cwd(), file)}\n`);
  return report.fanout.missing === 0 && report.fanout.p99 <= 100 && report.fanout.non2xx === 0 ? ('pass' as const) : ('fail' as const);
}

const TOPOLOGY_TITLE: Record<WsTopology, string> = {
  direct: 'WebSockets straight to the messaging replicas (`--ws=direct`, as deployed: the target is judged here)',
  gateway: 'WebSockets through the gateways (`--ws=gateway`, as the embedded launcher runs them)',
};

const command = (o: Report['options']) =>
  `npx tsx bench/realtime.ts --ws=${o.ws} --sockets=${o.sockets} --rate=${o.rate} --duration=${o.duration}${o.flushMs !== undefined ? ` --flush-ms=${o.flushMs}` : ''}`;

const RUNS_KEPT = 20;

/**
 * The results file: the runs so far (one line each, the last RUNS_KEPT), then the latest full report of each
 * topology. A run replaces its own topology's report and keeps the other's, so both stand side by side.
 */
function resultsFile(previous: string, r: Report, section: string): string {
  const between = (name: string) => new RegExp(`<!-- ${name} -->\\n([\\s\\S]*?)<!-- /${name} -->`).exec(previous)?.[1];
  const f = r.fanout;
  const verdict = f.missing === 0 && f.samples > 0 && f.p99 <= 100 && f.non2xx === 0 ? 'PASS' : 'FAIL';
  const cpu = r.cpuPerMessage ? `${r.cpuPerMessage.fleetMs} (messaging ${r.cpuPerMessage.parts.messaging}, gateways ${r.cpuPerMessage.parts.gateways}); generator ${r.cpuPerMessage.generatorMs}` : '—';
  const row = `| ${r.startedAt} | ${r.options.ws} | \`${command(r.options)}\` | ${f.p50} | **${f.p99}** | ${f.max} | ${f.missing} | ${cpu} | ${r.loadAverage[0]?.toFixed(1) ?? '—'} | ${verdict} |`;
  const rows = (between('runs') ?? '').split('\n').filter((line) => line.startsWith('| 2'));
  rows.push(row);
  const sections = { direct: between('ws=direct'), gateway: between('ws=gateway') };
  sections[r.options.ws] = section;
  return [
    '# Real-time fan-out (issue 16), PostgreSQL + Redis',
    '',
    'Target: every socket gets every message, and p99 send → receipt ≤ 100 ms, with 1,000 sockets on one chat across two messaging replicas and 200 messages/s. It is judged on the deployed topology, `--ws=direct`: the Ingress sends `/messaging/ws` straight to the messaging Service and everything else to the gateway. `--ws=gateway` keeps the sockets behind the gateways, which pipe every frame.',
    '',
    `Runs (the last ${RUNS_KEPT}; latencies in ms; CPU in ms per message over the send phase and its drain; load: the 1-minute load average when sending began):`,
    '',
    '<!-- runs -->',
    '| started | topology | command | p50 | p99 | max | missing | CPU per message: fleet (parts); load generator | load | verdict |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | --- |',
    ...rows.slice(-RUNS_KEPT),
    '<!-- /runs -->',
    '',
    ...(['direct', 'gateway'] as const).flatMap((ws) => (sections[ws] ? [`<!-- ws=${ws} -->`, sections[ws].trimEnd(), `<!-- /ws=${ws} -->`, ''] : [])),
  ].join('\n');
}

/** The full report of one run, a section of the results file. */
function markdown(r: Report, seconds: number): string {
  const f = r.fanout;
  const s = r.sendRoute;
  const pass = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  const shape =
    r.options.ws === 'direct'
      ? `${r.sockets.perReplica.join(' + ')} connected straight to the two messaging replicas (Redis pub/sub fan-out); registrations and messages (\`POST /messaging/messages/send\`, open loop) through two gateways in turn, gateway g in front of replica g`
      : `${r.sockets.perReplica.join(' + ')} through two gateways to two messaging replicas (Redis pub/sub fan-out); messages posted with \`POST /messaging/messages/send\` through the gateways in turn, open loop`;
  const lines = [
    `## ${TOPOLOGY_TITLE[r.options.ws]}`,
    '',
    `${r.startedAt}, ${r.machine.cpus} × ${r.machine.model}, ${r.machine.memoryGb} GB, Node ${r.machine.node}; \`${command(r.options)}\` (warm-up ${r.options.warmup} s; messaging's flush window ${r.options.flushMs !== undefined ? `${r.options.flushMs} ms` : 'its default'}), ${Math.round(seconds)} s in all.`,
    '',
    `${r.options.sockets} WebSocket sockets on one live-stream chat, ${shape}.`,
    '',
    '| figure | value | target | verdict |',
    '| --- | --- | --- | --- |',
    `| sockets registered | ${r.sockets.registry.join(' / ')} listed through gateway 1 / 2 (opened in ${r.sockets.openMs.map((v) => (v / 1000).toFixed(1)).join(' / ')} s, registered in ${r.sockets.registerMs.map((v) => (v / 1000).toFixed(1)).join(' / ')} s) | ${r.options.sockets} from either replica | ${pass(r.sockets.registry.every((n) => n === r.options.sockets))} |`,
    `| messages sent | ${f.sent} at ${f.achievedRate}/s (${f.warmupSeqs} of warm-up), ${f.non2xx} not 2xx ${JSON.stringify(f.statuses)}; sender late by ${f.senderLagMaxMs} ms at most | ${r.options.rate}/s | ${pass(f.non2xx === 0)} |`,
    `| deliveries | ${f.received.toLocaleString('en-US')} of ${f.expected.toLocaleString('en-US')}, **${f.missing} missing**, ${f.duplicates} duplicated, ${f.closed} sockets closed; last arrived ${round(f.drainMs / 1000, 1)} s after the last answer; ${round(f.received / Math.max(1, f.reads), 1)} messages per TCP read at the sockets | 0 missing | ${pass(f.missing === 0 && f.expected > 0)} |`,
    `| send → receipt (every socket, ${f.samples.toLocaleString('en-US')} deliveries after the warm-up) | p50 ${f.p50} ms, **p99 ${f.p99} ms**, max ${f.max} ms | p99 ≤ 100 ms | ${pass(f.samples > 0 && f.p99 <= 100)} |`,
    `| send route answer during the fan-out | p50 ${f.sendAnswerP50} ms, p99 ${f.sendAnswerP99} ms; until the database stamps the message p50 ${f.toStampP50} ms, p99 ${f.toStampP99} ms; from the stamp to the answer p50 ${f.fromStampP50} ms, p99 ${f.fromStampP99} ms | — | |`,
    r.cpuPerMessage
      ? `| CPU per message (${r.options.sockets} sockets), send phase and drain | fleet **${r.cpuPerMessage.fleetMs} ms** (${Object.entries(r.cpuPerMessage.parts)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}), so ${round((r.cpuPerMessage.fleetMs * r.options.rate) / 1000, 2)} cores at ${r.options.rate}/s; load generator ${r.cpuPerMessage.generatorMs} ms | — | |`
      : '| CPU per message | not measured | — | |',
    s
      ? `| send route throughput (closed loop, ${r.options.connections} connections, ${r.options.sendDuration} s, a chat no socket watches, one gateway → one replica) | **${s.rps} req/s**, p50 ${s.p50} ms, p99 ${s.p99} ms, ${s.non2xx} not 2xx, ${s.errors} errors | — | |`
      : '| send route throughput | not measured | — | |',
    '',
    `Processes (memory at the end of the fan-out; over the send phase and its drain, ${r.fanout.sendSeconds} s: CPU seconds, the part of them in the kernel (system time: socket writes and reads), and seconds its threads were ready to run but waited for a core):`,
    '',
    '| process | pid | RSS MB | peak RSS MB | CPU s | of it in the kernel s | waited for a CPU s | open fds |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...r.processes.map((p) => `| ${p.name} | ${p.pid} | ${p.rssMb} | ${p.peakMb} | ${p.cpuS} | ${p.systemS} | ${p.waitS} | ${p.fds} |`),
    '',
    `Load average at the start of the send phase: ${r.loadAverage.map((l) => l.toFixed(1)).join(', ')} (1, 5, 15 min).`,
    '',
    `messaging's database connections while sending (pg_stat_activity every 50 ms; state, wait, query; % of samples): ${r.pgWaits.map((w) => `${w.share}% ${w.what}`).join('; ')}.`,
    '',
    `Sockets and ports: ${r.files.ports}. Open file limit: soft ${r.files.soft}, hard ${r.files.hard}${r.files.raised ? ' (raised by the script for the run)' : ''}.`,
    ...(r.notes.length ? ['', ...r.notes.map((n) => `- ${n}`)] : []),
    '',
  ];
  return lines.join('\n');
}

if (process.env.BENCH_RT_ROLE === 'receiver') {
  receiver().catch((err: unknown) => {
    process.send?.({ type: 'failed', error: err instanceof Error ? err.message : String(err) } satisfies FromReceiver);
    setTimeout(() => process.exit(1), 100);
  });
} else {
  main().then(
    (verdict) => {
      if (verdict !== 'rerun') process.exit(verdict === 'pass' ? 0 : 1);
    },
    (err: unknown) => {
      log(`realtime bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exit(1);
    },
  );
}
