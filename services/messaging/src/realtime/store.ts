import type { Redis } from 'ioredis';

/** One WebSocket registration on a conversation (spec: connection). */
export interface Connection {
  churchId: string;
  conversationId: string;
  socketId: string;
  displayName: string | null;
  personId: string | null;
  ipAddress: string | null;
}

/**
 * The connection registry every replica shares: which sockets are live (and on which replica), and which
 * conversations each socket registered on. Redis-held when the fan-out runs on Redis, in memory otherwise.
 */
export interface RegistryStore {
  /** a socket was opened on `replicaId` */
  addSocket(socketId: string, replicaId: string): Promise<void>;
  socketLive(socketId: string): Promise<boolean>;
  add(conn: Connection): Promise<void>;
  remove(churchId: string, conversationId: string, socketId: string): Promise<Connection | null>;
  /** drops a socket and every registration it had; answers the registrations */
  removeSocket(socketId: string): Promise<Connection[]>;
  list(churchId: string, conversationId: string): Promise<Connection[]>;
  ofSocket(socketId: string): Promise<Connection[]>;
  /** this replica is alive for `ttlMs` more */
  heartbeat(replicaId: string, ttlMs: number): Promise<void>;
  /** replicas whose heartbeat lapsed, each claimed by exactly one caller, with the sockets they held */
  claimDeadReplicas(): Promise<Array<{ replicaId: string; socketIds: string[] }>>;
  forgetReplica(replicaId: string): Promise<void>;
  /** the sockets the registry still lists for a replica */
  socketsOfReplica(replicaId: string): Promise<string[]>;
  close(): Promise<void>;
}

const convKey = (churchId: string, conversationId: string) => `${churchId}|${conversationId}`;

/** The registry of a single process (no REDIS_URL). */
export function memoryStore(): RegistryStore {
  const sockets = new Map<string, string>();
  const byConv = new Map<string, Map<string, Connection>>();
  const bySocket = new Map<string, Set<string>>();
  const remove = async (churchId: string, conversationId: string, socketId: string) => {
    const key = convKey(churchId, conversationId);
    const conv = byConv.get(key);
    const conn = conv?.get(socketId) ?? null;
    conv?.delete(socketId);
    if (conv && !conv.size) byConv.delete(key);
    bySocket.get(socketId)?.delete(key);
    return conn;
  };
  return {
    async addSocket(socketId, replicaId) {
      sockets.set(socketId, replicaId);
    },
    async socketLive(socketId) {
      return sockets.has(socketId);
    },
    async add(conn) {
      const key = convKey(conn.churchId, conn.conversationId);
      if (!byConv.has(key)) byConv.set(key, new Map());
      byConv.get(key)!.set(conn.socketId, conn);
      if (!bySocket.has(conn.socketId)) bySocket.set(conn.socketId, new Set());
      bySocket.get(conn.socketId)!.add(key);
    },
    remove,
    async removeSocket(socketId) {
      const out: Connection[] = [];
      for (const key of [...(bySocket.get(socketId) ?? [])]) {
        const [churchId, conversationId] = key.split('|') as [string, string];
        const conn = await remove(churchId, conversationId, socketId);
        if (conn) out.push(conn);
      }
      bySocket.delete(socketId);
      sockets.delete(socketId);
      return out;
    },
    async list(churchId, conversationId) {
      return [...(byConv.get(convKey(churchId, conversationId))?.values() ?? [])];
    },
    async ofSocket(socketId) {
      return [...(bySocket.get(socketId) ?? [])].flatMap((key) => {
        const conn = byConv.get(key)?.get(socketId);
        return conn ? [conn] : [];
      });
    },
    async heartbeat() {},
    async claimDeadReplicas() {
      return [];
    },
    async forgetReplica() {},
    async socketsOfReplica(replicaId) {
      return [...sockets].filter(([, r]) => r === replicaId).map(([id]) => id);
    },
    async close() {},
  };
}

/**
 * The registry on Redis: `sock:<id>` → replica, `sockreg:<id>` → its conversations, `conv:<church>:<conversation>`
 * → socket id → connection JSON, `replica:<id>:sockets`, `replica:<id>:alive` (expires unless refreshed) and the
 * `replicas` set. A replica that stops beating is claimed (SREM decides who) and its sockets are removed.
 */
export function redisStore(redis: Redis, prefix = 'msg:rt:'): RegistryStore {
  const k = {
    sock: (id: string) => `${prefix}sock:${id}`,
    sockreg: (id: string) => `${prefix}sockreg:${id}`,
    conv: (churchId: string, conversationId: string) => `${prefix}conv:${churchId}:${conversationId}`,
    replicaSockets: (id: string) => `${prefix}replica:${id}:sockets`,
    alive: (id: string) => `${prefix}replica:${id}:alive`,
    replicas: `${prefix}replicas`,
  };
  const parse = (json: string | null): Connection | null => {
    if (!json) return null;
    try {
      return JSON.parse(json) as Connection;
    } catch {
      return null;
    }
  };
  const remove = async (churchId: string, conversationId: string, socketId: string) => {
    const [[, json]] = (await redis
      .multi()
      .hget(k.conv(churchId, conversationId), socketId)
      .hdel(k.conv(churchId, conversationId), socketId)
      .srem(k.sockreg(socketId), convKey(churchId, conversationId))
      .exec()) as [[Error | null, string | null]];
    return parse(json);
  };
  return {
    async addSocket(socketId, replicaId) {
      await redis.multi().set(k.sock(socketId), replicaId).sadd(k.replicaSockets(replicaId), socketId).sadd(k.replicas, replicaId).exec();
    },
    async socketLive(socketId) {
      return (await redis.exists(k.sock(socketId))) === 1;
    },
    async add(conn) {
      await redis
        .multi()
        .hset(k.conv(conn.churchId, conn.conversationId), conn.socketId, JSON.stringify(conn))
        .sadd(k.sockreg(conn.socketId), convKey(conn.churchId, conn.conversationId))
        .exec();
    },
    remove,
    async removeSocket(socketId) {
      const keys = await redis.smembers(k.sockreg(socketId));
      const out: Connection[] = [];
      for (const key of keys) {
        const [churchId, conversationId] = key.split('|') as [string, string];
        const conn = await remove(churchId, conversationId, socketId);
        if (conn) out.push(conn);
      }
      const replica = await redis.get(k.sock(socketId));
      const tx = redis.multi().del(k.sockreg(socketId)).del(k.sock(socketId));
      if (replica) tx.srem(k.replicaSockets(replica), socketId);
      await tx.exec();
      return out;
    },
    async list(churchId, conversationId) {
      const all = await redis.hvals(k.conv(churchId, conversationId));
      return all.map(parse).filter((c): c is Connection => c !== null);
    },
    async ofSocket(socketId) {
      const keys = await redis.smembers(k.sockreg(socketId));
      const out: Connection[] = [];
      for (const key of keys) {
        const [churchId, conversationId] = key.split('|') as [string, string];
        const conn = parse(await redis.hget(k.conv(churchId, conversationId), socketId));
        if (conn) out.push(conn);
      }
      return out;
    },
    async heartbeat(replicaId, ttlMs) {
      await redis.multi().set(k.alive(replicaId), String(Date.now()), 'PX', ttlMs).sadd(k.replicas, replicaId).exec();
    },
    async claimDeadReplicas() {
      const out: Array<{ replicaId: string; socketIds: string[] }> = [];
      for (const replicaId of await redis.smembers(k.replicas)) {
        if (await redis.exists(k.alive(replicaId))) continue;
        if ((await redis.srem(k.replicas, replicaId)) !== 1) continue; // another replica claimed it
        out.push({ replicaId, socketIds: await redis.smembers(k.replicaSockets(replicaId)) });
      }
      return out;
    },
    async forgetReplica(replicaId) {
      await redis.multi().del(k.replicaSockets(replicaId)).del(k.alive(replicaId)).srem(k.replicas, replicaId).exec();
    },
    async socketsOfReplica(replicaId) {
      return redis.smembers(k.replicaSockets(replicaId));
    },
    async close() {},
  };
}
