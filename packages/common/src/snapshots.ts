import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress as brotliCallback, constants as zlibConstants, gzip as gzipCallback } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { batchedReads, isUuid } from './batch';
import type { Database } from './db';

/**
 * One counter per church (`tables.ts`), raised in the same transaction as every change to the tables whose
 * whole-church answers are kept as snapshots. A module that uses snapshots includes the table in its schema and
 * puts the `bump_data_version()` trigger on those tables in a migration (`dataVersionSql`).
 *
 * The trigger is a deferred constraint trigger: it runs at commit, so the counter's row is locked only for
 * the last instant of a writing transaction. Two saves in one church never wait on each other for the rest
 * of their work, and, taking the one lock last, they cannot deadlock over it.
 */
export { dataVersions } from './tables';

const versionsOf = batchedReads(async (database: Pick<Database, 'rows'>, churchIds: string[]) => {
  const ids = churchIds.filter(isUuid);
  const rows = ids.length
    ? await database.rows<{ c: string; v: string }>('select church_id::text as c, version::text as v from data_versions where church_id = any($1::uuid[])', [ids])
    : [];
  const versions = new Map(rows.map((r) => [r.c, r.v]));
  return churchIds.map((id) => versions.get(id.toLowerCase()));
});

/**
 * The church's data version: "0" until its first change under the trigger. One primary-key lookup, shared by
 * every concurrent read of the same module (`batchedReads`: a read always sees a version committed before it
 * asked, never a query that was already out).
 */
export async function dataVersion(database: Pick<Database, 'rows'>, churchId: string): Promise<string> {
  return (await versionsOf(database, churchId)) ?? '0';
}

const gzip = promisify(gzipCallback);
const brotliCompress = promisify(brotliCallback);

/**
 * Brotli quality by size: 9 for lists up to a megabyte (smaller than gzip for little more time), 5 above it, where
 * 9 would cost far more than gzip (bench/results/design-measurements.md).
 */
const brotli = (body: Buffer) =>
  brotliCompress(body, {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: body.length > 2 ** 20 ? 5 : 9,
      [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length,
      [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
    },
  });

interface Prepared {
  /** the ETag's text: a hash of what the body was built from */
  tag: string;
  body: Buffer;
  /** the same body gzipped once, for the clients that accept it (every browser and HTTP library does) */
  gzipped: Buffer;
  /** and compressed with brotli, smaller still, for the clients that accept that (browsers over HTTPS do) */
  brotli: Buffer;
}

/** A snapshot's ETag is a hash of the build, its key and the version. */
interface Snapshot extends Prepared {
  version: string;
}

interface Entry {
  version: string;
  value: unknown;
  bytes: number;
}

export interface SnapshotOptions {
  /** memory the snapshots of this process may hold; the least recently used go first */
  maxBytes: number;
  /** the church's data version (`dataVersion` over the module's database) */
  version: (churchId: string) => Promise<string>;
  /**
   * names the code that serializes (the image's revision): a deploy that changes an answer's format must not
   * answer 304 to a client holding the old format at an unchanged data version
   */
  buildId?: string;
}

/** `If-None-Match` holds this tag: a list of tags or `*`, compared weakly (RFC 9110 §13.1.2). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

/** Two lists of flat records hold the same values in the same order (a `sendKept` comparison). */
export function sameRows<T extends object>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Record<string, unknown>;
    const y = b[i] as Record<string, unknown>;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const k of keys) if (x[k] !== y[k]) return false;
  }
  return true;
}

/**
 * A body ready to be sent again and again: compressed once with gzip and with brotli (both on the thread pool,
 * side by side, off the event loop) and tagged.
 */
async function prepare(body: Buffer, tagOf: string | Buffer): Promise<Prepared> {
  const [gzipped, compressed] = await Promise.all([gzip(body), brotli(body)]);
  return { tag: createHash('sha1').update(tagOf).digest('base64url').slice(0, 22), body, gzipped, brotli: compressed };
}

const preparedBytes = (p: Prepared) => p.body.length + p.gzipped.length + p.brotli.length;

/** The encodings a prepared body is kept in, the server's preference first when a client rates two alike. */
const ENCODINGS = ['br', 'gzip', 'identity'];
const SUFFIX: Record<string, string> = { br: '-br', gzip: '-gz', identity: '' };

/** How a kept body is sent: its content type and caching (JSON, revalidated on every use, by default). */
export interface AnswerOptions {
  type?: string;
  cacheControl?: string;
}

/** Sends a prepared body: compressed as the client accepts (brotli, else gzip), 304 when it holds it already. */
function answer(req: FastifyRequest, reply: FastifyReply, prepared: Prepared, opts: AnswerOptions = {}): FastifyReply {
  const encoding = negotiate(req.headers['accept-encoding'] ?? '', ENCODINGS) ?? 'identity';
  // Each encoding is its own representation, with its own strong ETag.
  const etag = `"${prepared.tag}${SUFFIX[encoding]}"`;
  reply
    .header('etag', etag)
    .header('cache-control', opts.cacheControl ?? 'private, no-cache')
    .header('vary', 'accept-encoding');
  if (matches(req.headers['if-none-match'], etag)) return reply.code(304).send();
  reply.type(opts.type ?? 'application/json; charset=utf-8');
  if (encoding === 'br') return reply.header('content-encoding', 'br').send(prepared.brotli);
  if (encoding === 'gzip') return reply.header('content-encoding', 'gzip').send(prepared.gzipped);
  return reply.send(prepared.body);
}

/**
 * Serialized whole-church answers (the people list, the groups list) kept in memory and served again while
 * the church's data version is unchanged. A read then costs one primary-key lookup instead of loading,
 * decoding and serializing every row (a large church's people list is megabytes of JSON).
 * The same store keeps other values derived from a whole church at a version (`value`), such as each
 * person's serialized record, from which searches assemble their answers.
 *
 * Correctness: the version is read before the rows, so a snapshot can only hold data at least as new as the
 * version it is filed under; a change commits a new version with it, and the next read sees the difference
 * and rebuilds. Each replica keeps its own snapshots, so nothing is shared to go stale across processes.
 * Answers carry an ETag of the version, and `If-None-Match` gets 304 without a body. A client that accepts
 * gzip gets the body compressed once per version (the people list: 8.7 MB → about 1 MB on the wire).
 */
export function createSnapshots(options: SnapshotOptions) {
  const entries = new Map<string, Entry>();
  const building = new Map<string, Promise<unknown>>();
  let bytes = 0;

  const keep = (key: string, entry: Entry) => {
    const old = entries.get(key);
    // A slow build of an older version must not replace a newer one that finished first.
    if (old && BigInt(old.version) > BigInt(entry.version)) return;
    if (old) {
      bytes -= old.bytes;
      entries.delete(key);
    }
    if (entry.bytes > options.maxBytes) return;
    entries.set(key, entry);
    bytes += entry.bytes;
    for (const [oldest, { bytes: size }] of entries) {
      if (bytes <= options.maxBytes) break;
      entries.delete(oldest);
      bytes -= size;
    }
  };

  /** The value of `key` at `version`, built once however many requests ask for it at the same time. */
  const value = async <T>(key: string, version: string, build: () => Promise<T>, sizeOf: (value: T) => number): Promise<T> => {
    const hit = entries.get(key);
    if (hit?.version === version) {
      // Map order is the eviction order: a hit moves to the back.
      entries.delete(key);
      entries.set(key, hit);
      return hit.value as T;
    }
    const id = `${key}\n${version}`;
    let pending = building.get(id) as Promise<T> | undefined;
    if (!pending) {
      pending = build()
        .then((built) => {
          keep(key, { version, value: built, bytes: sizeOf(built) });
          return built;
        })
        .finally(() => building.delete(id));
      building.set(id, pending);
    }
    return pending;
  };

  /** The serialized answer of `key` at `version` (`build` gives its JSON text). */
  const get = (key: string, version: string, build: () => Promise<string>): Promise<Snapshot> =>
    value(
      key,
      version,
      async () => ({ version, ...(await prepare(Buffer.from(await build()), `${options.buildId ?? ''}\n${key}\n${version}`)) }),
      preparedBytes,
    );

  return {
    get,
    value,
    version: options.version,
    /** bytes held (for tests and metrics) */
    size: () => bytes,

    /**
     * Answers a route from its snapshot: `load` builds the route's value (serialized by the route's own
     * response schema, so a snapshot holds exactly what the route would send), `variant` tells apart answers
     * of one church that differ by viewer.
     */
    async send(
      req: FastifyRequest,
      reply: FastifyReply,
      churchId: string,
      variant: string,
      load: () => Promise<unknown>,
    ): Promise<void> {
      const key = `${req.routeOptions.url}\n${churchId}\n${variant}`;
      const version = await options.version(churchId);
      const snapshot = await get(key, version, async () => reply.serializeInput((await load()) as Record<string, unknown>, '200') as string);
      answer(req, reply, snapshot);
    },

    /**
     * Answers the body kept for (`scope`, `variant`) of this route at a `version` the route has read itself
     * (when it needs the version before the body: a gate, a publish schedule), building its text once with
     * `build`. `scope` is the church, or another owner of the data (a Bible translation). Any content type:
     * `opts` sets it and the caching.
     */
    sendAt(
      req: FastifyRequest,
      reply: FastifyReply,
      scope: string,
      variant: string,
      version: string,
      build: () => Promise<string>,
      opts?: AnswerOptions,
    ): Promise<FastifyReply> {
      return get(`${req.routeOptions.url}\n${scope}\n${variant}`, version, build).then((kept) => answer(req, reply, kept, opts));
    },

    /**
     * Answers a route's `current` value from the body kept for `key` when `current` is the same (by `same`)
     * as the value that body was built from, and builds and keeps a new body otherwise. For answers that have
     * no data version to file them under but are cheaper to compare than to serialize and send (a session's
     * attendance sheet: a few hundred rows read on every request, serialized and compressed only when they
     * change). The ETag is a hash of the body.
     */
    async sendKept<T>(req: FastifyRequest, reply: FastifyReply, key: string, current: T, same: (kept: T, current: T) => boolean): Promise<void> {
      const id = `${req.routeOptions.url}\n${key}`;
      const entry = entries.get(id);
      const hit = entry?.value as { source: T; prepared: Prepared } | undefined;
      let prepared = hit && same(hit.source, current) ? hit.prepared : undefined;
      if (!prepared) {
        const body = Buffer.from(reply.serializeInput(current as Record<string, unknown>, '200') as string);
        prepared = await prepare(body, body);
        // Kept under one constant version: a newer build always replaces the older.
        keep(id, { version: '0', value: { source: current, prepared }, bytes: preparedBytes(prepared) });
      } else {
        // The callers of a shared read (`coalesced`) hand in the same value: theirs now compares at once.
        hit!.source = current;
        // Map order is the eviction order: a hit moves to the back.
        entries.delete(id);
        entries.set(id, entry!);
      }
      answer(req, reply, prepared);
    },
  };
}

export type Snapshots = ReturnType<typeof createSnapshots>;
