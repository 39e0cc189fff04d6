import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
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
  /** Redis for pub/sub and the shared registry; in-process without */
  redisUrl?: string;
  heartbeatSeconds: number;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** key prefix (tests isolate runs) */
  prefix?: string;
}

interface LocalSocket {
  ws: WebSocket;
  /** when it last answered a ping or sent a frame */
  lastSeen: number;
  /** this socket's registrations: conversation key → connection */
  regs: Map<string, Connection>;
}

const convKey = (churchId: string, conversationId: string) => `${churchId}|${conversationId}`;
const personKey = (churchId: string, personId: string) => `${churchId}|${personId}`;

/**
 * The real-time fan-out of one replica. Sockets live on the replica that accepted them; registrations, drops and
 * pushes travel over the bus (Redis pub/sub, or an in-process emitter), so a message sent to any replica reaches
 * the sockets of all of them. The registry is shared (`RegistryStore`); each replica beats, and a replica that
 * stops beating is reaped by the others with all its connections (attendance is broadcast again).
 */
export class Realtime {
  readonly replicaId = randomUUID();
  readonly kind: 'redis' | 'in-process';
  readonly store: RegistryStore;
  private readonly sockets = new Map<string, LocalSocket>();
  private readonly convIndex = new Map<string, Set<string>>();
  private readonly personIndex = new Map<string, Set<string>>();
  private readonly bus: Bus;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly redis?: Redis;
  private closed = false;

  constructor(private readonly opts: RealtimeOptions) {
    const prefix = opts.prefix ?? 'msg:rt:';
    if (opts.redisUrl) {
      this.kind = 'redis';
      this.redis = new Redis(opts.redisUrl, { maxRetriesPerRequest: 3, lazyConnect: false });
      const sub = new Redis(opts.redisUrl, { maxRetriesPerRequest: 3 });
      const channel = `${prefix}bus`;
      void sub.subscribe(channel).catch((err: unknown) => opts.log.error({ err }, 'realtime subscribe failed'));
      sub.on('message', (_ch: string, raw: string) => {
        try {
          this.receive(JSON.parse(raw) as BusEvent);
        } catch (err) {
          opts.log.warn({ err }, 'realtime: bad bus message');
        }
      });
      this.store = redisStore(this.redis, prefix);
      const redis = this.redis;
      this.bus = {
        publish: async (event) => {
          await redis.publish(channel, JSON.stringify(event));
        },
        close: async () => {
          sub.disconnect();
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

  /** Starts heartbeats (registry) and pings (sockets). */
  async start(): Promise<void> {
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
    const local: LocalSocket = { ws, lastSeen: Date.now(), regs: new Map() };
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

  /** Broadcasts who is on a conversation (by display name). */
  async attendance(churchId: string, conversationId: string): Promise<void> {
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
    if (!this.convIndex.has(key)) this.convIndex.set(key, new Set());
    this.convIndex.get(key)!.add(conn.socketId);
    if (conn.personId) {
      const pk = personKey(conn.churchId, conn.personId);
      if (!this.personIndex.has(pk)) this.personIndex.set(pk, new Set());
      this.personIndex.get(pk)!.add(conn.socketId);
    }
  }

  private unindex(socketId: string, conn: Connection) {
    const key = convKey(conn.churchId, conn.conversationId);
    this.sockets.get(socketId)?.regs.delete(key);
    const set = this.convIndex.get(key);
    set?.delete(socketId);
    if (set && !set.size) this.convIndex.delete(key);
    if (conn.personId) {
      const pk = personKey(conn.churchId, conn.personId);
      const stillThere = [...(this.sockets.get(socketId)?.regs.values() ?? [])].some((c) => c.personId === conn.personId && c.churchId === conn.churchId);
      if (!stillThere) {
        const ps = this.personIndex.get(pk);
        ps?.delete(socketId);
        if (ps && !ps.size) this.personIndex.delete(pk);
      }
    }
  }

  private send(socketIds: Iterable<string> | undefined, payload: Payload) {
    if (!socketIds) return;
    const text = JSON.stringify(payload);
    for (const id of socketIds) {
      const s = this.sockets.get(id);
      if (s && s.ws.readyState === 1) s.ws.send(text);
    }
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
        return this.send(this.convIndex.get(convKey(event.churchId, event.conversationId)), event.payload);
      case 'person':
        return this.send(this.personIndex.get(personKey(event.churchId, event.personId)), event.payload);
      case 'socket':
        return this.send([event.socketId], event.payload);
    }
  }

  /** Closes this replica's sockets and connections to Redis; its registrations go with it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.timers.forEach((t) => clearInterval(t));
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
    for (const s of this.sockets.values()) s.ws.terminate();
    this.sockets.clear();
    await this.bus.close();
    this.redis?.disconnect();
  }
}
