import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { Redis } from 'ioredis';
import type { WebSocket } from 'ws';
import { memoryStore, redisStore, type Connection, type RegistryStore } from './store';

/** What every socket receives (NOTES.md): `{churchId, conversationId, action, data}`. */
export interface Payload {
  churchId: string;
  conversationId: string;
  action: 'socketId' | 'message' | 'deleteMessage' | 'attendance' | 'notification' | 'privateMessage' | 'callout' | 'alert' | (string & {});
  data: unknown;
}

/** Events kept for the other replicas while Redis is away, and how often sending them is tried again. */
const REMOTE_BACKLOG = 10_000;
const REMOTE_RETRY_MS = 500;
/** How long a read of the bus waits for new events before it asks again (ms), and how many it takes at once. */
const READ_BLOCK_MS = 5_000;
const READ_COUNT = 1_000;

/** Events on the bus every replica listens to. */
type BusEvent =
  | { t: 'conv'; churchId: string; conversationId: string; payload: Payload }
  | { t: 'person'; churchId: string; personId: string; payload: Payload }
  | { t: 'socket'; socketId: string; payload: Payload }
  | { t: 'reg'; conn: Connection }
  | { t: 'unreg'; churchId: string; conversationId: string; socketId: string };

interface Bus {
  publish(event: BusEvent): Promise<void>;
  close(): Promise<void>;
}

export interface RealtimeOptions {
  /** Redis for the bus (a capped stream) and the shared registry; in-process without */
  redisUrl?: string;
  heartbeatSeconds: number;
  /**
   * how long pushes wait to go out together (ms; 0: the next turn of the event loop). A socket gets what gathered
   * in one write, so a busy chat costs a write per socket per flush rather than per message.
   */
  flushMs?: number;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** key prefix (tests isolate runs) */
  prefix?: string;
  /** events the bus (a Redis stream) keeps, about: what a replica that lost its connection reads when it is back */
  streamMaxLen?: number;
}

interface LocalSocket {
  ws: WebSocket;
  /** when it last answered a ping or sent a frame */
  lastSeen: number;
  /** this socket's registrations: conversation key → connection */
  regs: Map<string, Connection>;
  /** the TCP socket frames are written to directly (`rawSocket`), fixed once the handshake is done */
  raw: Socket | undefined;
}

/**
 * The sockets of this replica one conversation or person reaches: the ids (kept current by registrations) and the
 * same as a list of sockets, built on the first push after a change and shared by every push until the next
 * change (a push takes the list as it is; a change makes a new one).
 */
interface Audience {
  ids: Set<string>;
  list: LocalSocket[] | null;
}

/** A socket whose unsent bytes pass this is too slow for its pushes and is cut (it reconnects and catches up). */
const SLOW_SOCKET_BYTES = 16 * 1024 * 1024;
const OPEN = 1;

/** An unmasked, unfragmented text frame (RFC 6455 §5.2), as a server sends it. */
function textFrame(payload: Buffer): Buffer {
  const n = payload.length;
  const head = n < 126 ? 2 : n < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(head + n);
  frame[0] = 0x81; // FIN, text
  if (n < 126) frame[1] = n;
  else if (n < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(n), 2);
  }
  payload.copy(frame, head);
  return frame;
}

/**
 * The TCP socket under a WebSocket when whole frames may be written to it directly: no extension (compression)
 * was negotiated, so ws's sender writes every frame synchronously and never holds one back that a direct write
 * could overtake. Undefined otherwise: frames then go through `ws.send`.
 */
function rawSocket(ws: WebSocket): Socket | undefined {
  if (ws.extensions) return undefined;
  const socket = (ws as unknown as { _socket?: Socket })._socket;
  return socket && typeof socket.write === 'function' ? socket : undefined;
}

/** A push waiting for the next flush: encoded once, with the sockets of this replica it goes to. */
interface Pending {
  payload: Buffer;
  frame: Buffer;
  to: readonly LocalSocket[];
}

const convKey = (churchId: string, conversationId: string) => `${churchId}|${conversationId}`;
const personKey = (churchId: string, personId: string) => `${churchId}|${personId}`;

/** Adds a socket to the audience under `key` (its list is built again on the next push). */
function join(index: Map<string, Audience>, key: string, socketId: string) {
  const audience = index.get(key);
  if (!audience) index.set(key, { ids: new Set([socketId]), list: null });
  else if (!audience.ids.has(socketId)) {
    audience.ids.add(socketId);
    audience.list = null;
  }
}

/** Takes a socket out of the audience under `key`, and the audience away when it is left empty. */
function leave(index: Map<string, Audience>, key: string, socketId: string) {
  const audience = index.get(key);
  if (!audience?.ids.delete(socketId)) return;
  if (!audience.ids.size) index.delete(key);
  else audience.list = null;
}

/** The attendance broadcasts of one conversation: one at a time, and at most one more waiting to start. */
interface AttendanceRuns {
  running: boolean;
  /** the broadcast that has not started yet: it reads the registry after every change its callers made */
  next: { promise: Promise<void>; resolve: () => void; reject: (err: unknown) => void } | null;
}

/**
 * The real-time fan-out of one replica. Sockets live on the replica that accepted them; registrations, drops and
 * pushes travel over the bus (a capped Redis stream, or an in-process emitter), so a message sent to any replica
 * reaches the sockets of all of them. The registry is shared (`RegistryStore`); each replica beats, and a replica that
 * stops beating is reaped by the others with all its connections (attendance is broadcast again).
 */
export class Realtime {
  readonly replicaId = randomUUID();
  readonly kind: 'redis' | 'in-process';
  readonly store: RegistryStore;
  private readonly sockets = new Map<string, LocalSocket>();
  private readonly convIndex = new Map<string, Audience>();
  private readonly personIndex = new Map<string, Audience>();
  private readonly bus: Bus;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly redis?: Redis;
  private readonly attendanceRuns = new Map<string, AttendanceRuns>();
  /** resolves once the reader knows where the stream ends (events published after that are read) */
  private readonly reading?: Promise<void>;
  /** the id of the last event read from the stream */
  private lastRead = '0-0';
  private pending: Pending[] = [];
  /** cancels the scheduled flush */
  private flushing?: () => void;
  private closed = false;

  constructor(private readonly opts: RealtimeOptions) {
    const prefix = opts.prefix ?? 'msg:rt:';
    if (opts.redisUrl) {
      this.kind = 'redis';
      this.redis = new Redis(opts.redisUrl, { maxRetriesPerRequest: 3, lazyConnect: false });
      // Redis away: the commands that fail say so where they are awaited; the connection's own error events add nothing.
      this.redis.on('error', () => undefined);
      // The bus is a capped stream: each replica reads it on a connection of its own from the last event it read,
      // and goes on from there after a reconnect, so nothing published meanwhile is missed (within the cap).
      const stream = `${prefix}stream`;
      const maxLen = opts.streamMaxLen ?? 10_000;
      const reader = new Redis(opts.redisUrl, { maxRetriesPerRequest: null, connectionName: `${prefix}read:${this.replicaId}` });
      reader.on('error', () => undefined);
      this.reading = this.startReading(reader, stream);
      this.store = redisStore(this.redis, prefix);
      const redis = this.redis;
      // This replica's sockets get an event at once, whatever Redis is doing; the other replicas get it through
      // Redis, and what Redis refused is sent again once it answers (oldest first, at most REMOTE_BACKLOG events).
      const backlog: string[] = [];
      let draining = false;
      const drain = async () => {
        if (draining) return;
        draining = true;
        try {
          while (backlog.length && !this.closed) {
            await redis.xadd(stream, 'MAXLEN', '~', maxLen, '*', 'e', backlog[0]!);
            backlog.shift();
          }
        } catch {
          const retry = setTimeout(() => void drain(), REMOTE_RETRY_MS);
          retry.unref();
        } finally {
          draining = false;
        }
      };
      this.bus = {
        publish: async (event) => {
          this.receive(event);
          if (backlog.length >= REMOTE_BACKLOG) {
            backlog.shift();
            opts.log.warn({ backlog: REMOTE_BACKLOG }, 'realtime: Redis away, the oldest event for other replicas dropped');
          }
          backlog.push(JSON.stringify({ ...event, from: this.replicaId }));
          await drain();
        },
        close: async () => {
          reader.disconnect();
        },
      };
    } else {
      this.kind = 'in-process';
      this.store = memoryStore();
      const emitter = new EventEmitter();
      emitter.on('event', (event: BusEvent) => this.receive(event));
      this.bus = {
        publish: async (event) => {
          emitter.emit('event', event);
        },
        close: async () => {
          emitter.removeAllListeners();
        },
      };
    }
  }

  /**
   * Reads the bus from where the stream ends now, then on and on from the last event read: a read cut (the
   * connection killed, Redis restarted) is made again from that event once Redis answers, so this replica's sockets
   * get, in order, whatever was published meanwhile (the stream keeps about `streamMaxLen` events).
   */
  private async startReading(reader: Redis, stream: string): Promise<void> {
    for (;;) {
      try {
        const [newest] = await reader.xrevrange(stream, '+', '-', 'COUNT', 1);
        if (newest) this.lastRead = newest[0];
        break;
      } catch (err) {
        if (this.closed) return;
        this.opts.log.warn({ err }, 'realtime: the bus is not readable yet');
        await new Promise((r) => setTimeout(r, REMOTE_RETRY_MS));
      }
    }
    void this.readLoop(reader, stream);
  }

  private async readLoop(reader: Redis, stream: string): Promise<void> {
    let failing = false;
    while (!this.closed) {
      try {
        const answer = await reader.xread('COUNT', READ_COUNT, 'BLOCK', READ_BLOCK_MS, 'STREAMS', stream, this.lastRead);
        if (failing) this.opts.log.warn({}, 'realtime: reading the bus again');
        failing = false;
        for (const [, entries] of answer ?? []) {
          for (const [id, fields] of entries) {
            this.lastRead = id;
            this.fromBus(fields[1] ?? '');
          }
        }
      } catch (err) {
        if (this.closed) return;
        if (!failing) this.opts.log.warn({ err }, 'realtime: reading the bus failed; reading again from the last event');
        failing = true;
        await new Promise((r) => setTimeout(r, REMOTE_RETRY_MS));
      }
    }
  }

  /** One event of the bus: the other replicas' (this replica's own were delivered when they were published). */
  private fromBus(raw: string) {
    try {
      const event = JSON.parse(raw) as BusEvent & { from?: string };
      if (event.from !== this.replicaId) this.receive(event);
    } catch (err) {
      this.opts.log.warn({ err }, 'realtime: bad bus message');
    }
  }

  /** Starts heartbeats (registry) and pings (sockets). */
  async start(): Promise<void> {
    // where the bus ends, so that what other replicas publish from now on is read (not waited for long: the reader
    // goes on finding it, and the heartbeat below says whether Redis answers)
    if (this.reading) await Promise.race([this.reading, new Promise((r) => setTimeout(r, 2_000).unref())]);
    const beatMs = this.opts.heartbeatSeconds * 1000;
    await this.store.heartbeat(this.replicaId, beatMs * 3);
    const beat = setInterval(() => void this.beat(beatMs), beatMs);
    beat.unref();
    // WebSocket pings: a socket silent for two ping periods is cut (its close drops its connections). Time-based,
    // so timers that fire late (a busy event loop) never cut a healthy socket.
    const pingMs = Math.max(beatMs * 3, 15_000);
    const ping = setInterval(() => {
      const now = Date.now();
      for (const [, s] of this.sockets) {
        if (now - s.lastSeen > pingMs * 2 + 5_000) s.ws.terminate();
        else s.ws.ping();
      }
    }, pingMs);
    ping.unref();
    this.timers.push(beat, ping);
  }

  private async beat(beatMs: number) {
    if (this.closed) return;
    try {
      await this.store.heartbeat(this.replicaId, beatMs * 3);
      await this.reap();
    } catch (err) {
      this.opts.log.warn({ err }, 'realtime heartbeat failed');
    }
  }

  /** Removes the connections of replicas that stopped beating; answers how many sockets were dropped. */
  async reap(): Promise<number> {
    let dropped = 0;
    for (const dead of await this.store.claimDeadReplicas()) {
      for (const socketId of dead.socketIds) {
        const conns = await this.store.removeSocket(socketId);
        dropped++;
        await this.attendanceFor(conns);
      }
      await this.store.forgetReplica(dead.replicaId);
    }
    return dropped;
  }

  /** A socket was accepted by this replica: it gets its id first, and again whenever it sends a text frame. */
  async attach(ws: WebSocket): Promise<string> {
    const socketId = randomUUID();
    const local: LocalSocket = { ws, lastSeen: Date.now(), regs: new Map(), raw: rawSocket(ws) };
    this.sockets.set(socketId, local);
    const hello = JSON.stringify({ churchId: '', conversationId: '', action: 'socketId', data: socketId });
    ws.on('pong', () => (local.lastSeen = Date.now()));
    ws.on('message', () => {
      local.lastSeen = Date.now();
      ws.send(hello);
    });
    ws.on('close', () => void this.detach(socketId));
    ws.on('error', () => ws.terminate());
    await this.store.addSocket(socketId, this.replicaId);
    ws.send(hello);
    return socketId;
  }

  private async detach(socketId: string) {
    const local = this.sockets.get(socketId);
    if (!local) return;
    for (const conn of local.regs.values()) this.unindex(socketId, conn);
    this.sockets.delete(socketId);
    if (this.closed) return;
    try {
      const conns = await this.store.removeSocket(socketId);
      await this.attendanceFor(conns);
    } catch (err) {
      this.opts.log.warn({ err }, 'realtime: dropping a socket failed');
    }
  }

  /** Registers a live socket on a conversation; false when no replica holds that socket. */
  async register(conn: Connection): Promise<boolean> {
    if (!(await this.store.socketLive(conn.socketId))) return false;
    await this.store.add(conn);
    await this.bus.publish({ t: 'reg', conn });
    return true;
  }

  async unregister(churchId: string, conversationId: string, socketId: string): Promise<Connection | null> {
    const conn = await this.store.remove(churchId, conversationId, socketId);
    await this.bus.publish({ t: 'unreg', churchId, conversationId, socketId });
    return conn;
  }

  /** Sets the display name of every registration of a socket; answers the conversations touched. */
  async setName(socketId: string, name: string): Promise<Connection[]> {
    const conns = await this.store.ofSocket(socketId);
    for (const conn of conns) {
      const renamed = { ...conn, displayName: name };
      await this.store.add(renamed);
      await this.bus.publish({ t: 'reg', conn: renamed });
    }
    return conns.map((c) => ({ ...c, displayName: name }));
  }

  list(churchId: string, conversationId: string): Promise<Connection[]> {
    return this.store.list(churchId, conversationId);
  }

  /** Pushes a payload to every socket registered on the conversation, on every replica. */
  async publish(churchId: string, conversationId: string, payload: Omit<Payload, 'churchId' | 'conversationId'> & Partial<Payload>): Promise<void> {
    await this.bus.publish({ t: 'conv', churchId, conversationId, payload: { churchId, conversationId, ...payload } as Payload });
  }

  /** Pushes a payload to every socket a person registered with, on every replica. */
  async publishToPerson(churchId: string, personId: string, payload: Payload): Promise<void> {
    await this.bus.publish({ t: 'person', churchId, personId, payload });
  }

  /**
   * Broadcasts who is on a conversation (by display name); answers once a broadcast that read the registry after
   * this call has gone out. Broadcasts of a conversation run one at a time, and the calls made while one runs share
   * the next: a thousand viewers joining at once cost a few broadcasts, not a thousand (each to every viewer, each
   * reading the whole registry of the conversation).
   */
  attendance(churchId: string, conversationId: string): Promise<void> {
    const key = convKey(churchId, conversationId);
    let runs = this.attendanceRuns.get(key);
    if (!runs) this.attendanceRuns.set(key, (runs = { running: false, next: null }));
    if (runs.next) return runs.next.promise;
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    runs.next = { promise, resolve, reject };
    if (!runs.running) void this.runAttendance(key, runs, churchId, conversationId);
    return promise;
  }

  private async runAttendance(key: string, runs: AttendanceRuns, churchId: string, conversationId: string) {
    runs.running = true;
    while (runs.next) {
      const waiting = runs.next;
      runs.next = null;
      try {
        await this.broadcastAttendance(churchId, conversationId);
        waiting.resolve();
      } catch (err) {
        waiting.reject(err);
      }
    }
    runs.running = false;
    this.attendanceRuns.delete(key);
  }

  private async broadcastAttendance(churchId: string, conversationId: string): Promise<void> {
    const conns = await this.store.list(churchId, conversationId);
    const counts = new Map<string, { displayName: string; personId: string | null; count: number }>();
    for (const c of conns) {
      const name = c.displayName?.trim() || 'Anonymous';
      const key = `${name}|${c.personId ?? ''}`;
      const entry = counts.get(key) ?? { displayName: name, personId: c.personId, count: 0 };
      entry.count++;
      counts.set(key, entry);
    }
    await this.publish(churchId, conversationId, {
      action: 'attendance',
      data: { conversationId, viewers: [...counts.values()], totalViewers: conns.length },
    });
  }

  private async attendanceFor(conns: Connection[]) {
    const seen = new Set<string>();
    for (const c of conns) {
      const key = convKey(c.churchId, c.conversationId);
      if (seen.has(key)) continue;
      seen.add(key);
      await this.attendance(c.churchId, c.conversationId);
    }
  }

  /** Sockets this replica holds. */
  get localSockets(): number {
    return this.sockets.size;
  }

  private index(conn: Connection) {
    const local = this.sockets.get(conn.socketId);
    if (!local) return;
    const key = convKey(conn.churchId, conn.conversationId);
    const previous = local.regs.get(key);
    if (previous) this.unindex(conn.socketId, previous);
    local.regs.set(key, conn);
    join(this.convIndex, key, conn.socketId);
    if (conn.personId) join(this.personIndex, personKey(conn.churchId, conn.personId), conn.socketId);
  }

  private unindex(socketId: string, conn: Connection) {
    const key = convKey(conn.churchId, conn.conversationId);
    this.sockets.get(socketId)?.regs.delete(key);
    leave(this.convIndex, key, socketId);
    if (conn.personId) {
      const stillThere = [...(this.sockets.get(socketId)?.regs.values() ?? [])].some((c) => c.personId === conn.personId && c.churchId === conn.churchId);
      if (!stillThere) leave(this.personIndex, personKey(conn.churchId, conn.personId), socketId);
    }
  }

  /** The sockets of an audience that this replica holds, listed once per change of the audience. */
  private listOf(audience: Audience | undefined): readonly LocalSocket[] | undefined {
    if (!audience) return undefined;
    if (!audience.list) {
      const list: LocalSocket[] = [];
      for (const id of audience.ids) {
        const local = this.sockets.get(id);
        if (local) list.push(local);
      }
      audience.list = list;
    }
    return audience.list;
  }

  /**
   * Queues one event for the sockets it names that this replica holds: serialized and framed once, whatever their
   * number. It goes out with the next flush (`flushMs`).
   */
  private send(to: readonly LocalSocket[] | undefined, payload: Payload) {
    if (!to?.length || this.closed) return;
    const bytes = Buffer.from(JSON.stringify(payload));
    this.pending.push({ payload: bytes, frame: textFrame(bytes), to });
    if (this.flushing) return;
    const flushMs = this.opts.flushMs ?? 0;
    if (flushMs > 0) {
      const timer = setTimeout(() => this.flush(), flushMs);
      this.flushing = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(() => this.flush());
      this.flushing = () => clearImmediate(immediate);
    }
  }

  /**
   * Writes what gathered since the last flush: each socket gets its frames, in order, in one write. Sockets that get
   * the same frames (every viewer of a chat) share one buffer, joined once.
   */
  private flush() {
    this.flushing = undefined;
    const batch = this.pending;
    this.pending = [];
    if (!batch.length) return;
    // The usual case, one busy chat: every event goes to the same sockets, which all get the whole batch.
    const to = batch[0]!.to;
    if (batch.every((event) => event.to === to)) {
      const bytes = batch.length === 1 ? batch[0]!.frame : Buffer.concat(batch.map((event) => event.frame));
      for (const s of to) this.write(s, bytes, batch);
      return;
    }
    const perSocket = new Map<LocalSocket, number[]>();
    batch.forEach((event, i) => {
      for (const s of event.to) {
        const list = perSocket.get(s);
        if (list) list.push(i);
        else perSocket.set(s, [i]);
      }
    });
    const joined = new Map<string, Buffer>();
    for (const [s, events] of perSocket) {
      const key = events.length === batch.length ? '*' : events.join(',');
      let bytes = joined.get(key);
      if (!bytes) {
        bytes = events.length === 1 ? batch[events[0]!]!.frame : Buffer.concat(events.map((i) => batch[i]!.frame));
        joined.set(key, bytes);
      }
      this.write(s, bytes, events.length === batch.length ? batch : events.map((i) => batch[i]!));
    }
  }

  /** One socket's frames of a flush (`bytes`, the frames of `events` joined): one write, or `ws.send` each. */
  private write(s: LocalSocket, bytes: Buffer, events: readonly Pending[]) {
    if (s.ws.readyState !== OPEN) return;
    const raw = s.raw;
    if (!raw) {
      for (const event of events) s.ws.send(event.payload, { binary: false });
      return;
    }
    if (raw.writableLength > SLOW_SOCKET_BYTES) {
      s.ws.terminate();
      return;
    }
    raw.write(bytes);
  }

  private receive(event: BusEvent) {
    switch (event.t) {
      case 'reg':
        return this.index(event.conn);
      case 'unreg': {
        const local = this.sockets.get(event.socketId);
        const conn = local?.regs.get(convKey(event.churchId, event.conversationId));
        if (conn) this.unindex(event.socketId, conn);
        return;
      }
      case 'conv':
        return this.send(this.listOf(this.convIndex.get(convKey(event.churchId, event.conversationId))), event.payload);
      case 'person':
        return this.send(this.listOf(this.personIndex.get(personKey(event.churchId, event.personId))), event.payload);
      case 'socket': {
        const local = this.sockets.get(event.socketId);
        return this.send(local ? [local] : undefined, event.payload);
      }
    }
  }

  private stopFlushing() {
    this.flushing?.();
    this.flushing = undefined;
    this.pending = [];
  }

  /** Closes this replica's sockets and connections to Redis; its registrations go with it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.timers.forEach((t) => clearInterval(t));
    this.stopFlushing();
    // Sockets whose close raced this shutdown are still listed for the replica: drop them too.
    const listed = await this.store.socketsOfReplica(this.replicaId).catch(() => [] as string[]);
    const ids = [...new Set([...this.sockets.keys(), ...listed])];
    for (const id of ids) {
      try {
        await this.store.removeSocket(id);
      } catch {
        /* the reaper will */
      }
      this.sockets.get(id)?.ws.terminate();
    }
    this.sockets.clear();
    await this.store.forgetReplica(this.replicaId).catch(() => undefined);
    await this.bus.close();
    this.redis?.disconnect();
  }

  /** Stops beating without cleaning up, as a crashed replica would (tests of the reaper). */
  async crash(): Promise<void> {
    this.closed = true;
    this.timers.forEach((t) => clearInterval(t));
    this.stopFlushing();
    for (const s of this.sockets.values()) s.ws.terminate();
    this.sockets.clear();
    await this.bus.close();
    this.redis?.disconnect();
  }
}
