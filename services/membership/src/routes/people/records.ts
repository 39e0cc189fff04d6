import type { FastifyInstance, FastifyReply } from 'fastify';
import { toPerson, type PersonRecord } from '../../domain/person';
import { listPeople } from '../../repos/people';

/**
 * Each live person's record as the routes write it (`JSON.stringify(toPerson(row))`), all in one buffer, by id.
 * One buffer rather than 10,000 strings: it stays off the JavaScript heap, so it adds nothing to the garbage
 * collector's work on every major collection, and answers are assembled from slices of it without copies.
 */
interface Serialized {
  json: Buffer;
  /** id → position in `starts` / `ends` */
  index: Map<string, number>;
  starts: Uint32Array;
  ends: Uint32Array;
}

function serialize(rows: PersonRecord[]): Serialized {
  const parts = rows.map((row) => Buffer.from(JSON.stringify(toPerson(row))));
  const starts = new Uint32Array(parts.length);
  const ends = new Uint32Array(parts.length);
  const index = new Map<string, number>();
  let at = 0;
  parts.forEach((part, i) => {
    starts[i] = at;
    at += part.length;
    ends[i] = at;
    index.set(rows[i]!.id, i);
  });
  return { json: Buffer.concat(parts, at), index, starts, ends };
}

const sizeOf = (records: Serialized) => records.json.length + records.index.size * 48;
const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/**
 * Answers searches from the church's serialized person records: PostgreSQL finds the matching ids, and each
 * record's JSON comes from the church's records kept per data version (snapshots in @church/common), built
 * from one read of the whole church. A search for "Smi" in a church of 10,000 then reads 77 ids instead of
 * 77 rows of 35 columns, and serializes nothing.
 *
 * `ids` must be a query over the same live people as `listPeople` (any scope narrower than the church is
 * fine). When a record is missing, a change landed between the two reads: `rows` answers the usual way.
 */
export function personRecords(app: FastifyInstance) {
  const serialized = (churchId: string, version: string) =>
    app.deps.snapshots.value(
      `person-records\n${churchId}`,
      version,
      async () => serialize(await listPeople(app.db, churchId, {})),
      sizeOf,
    );

  return async (reply: FastifyReply, churchId: string, ids: () => Promise<string[]>, rows: () => Promise<PersonRecord[]>) => {
    const records = await serialized(churchId, await app.deps.snapshots.version(churchId));
    const found = await ids();
    const parts: Buffer[] = [OPEN];
    for (const id of found) {
      const i = records.index.get(id);
      if (i === undefined) return (await rows()).map(toPerson);
      if (parts.length > 1) parts.push(COMMA);
      parts.push(records.json.subarray(records.starts[i], records.ends[i]));
    }
    parts.push(CLOSE);
    reply.type('application/json; charset=utf-8').send(Buffer.concat(parts));
    return undefined;
  };
}
