import type { FastifyInstance, FastifyReply } from 'fastify';
import { toPerson, type PersonRecord } from '../../domain/person';
import { listPeople } from '../../repos/people';

/** Each live person's record as the routes write it (`JSON.stringify(toPerson(row))`), by id. */
type Serialized = Map<string, string>;

const sizeOf = (records: Serialized) => {
  let bytes = 0;
  for (const [id, json] of records) bytes += id.length + json.length;
  return bytes;
};

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
      async () => new Map((await listPeople(app.db, churchId, {})).map((row) => [row.id, JSON.stringify(toPerson(row))])) as Serialized,
      sizeOf,
    );

  return async (reply: FastifyReply, churchId: string, ids: () => Promise<string[]>, rows: () => Promise<PersonRecord[]>) => {
    const records = await serialized(churchId, await app.deps.snapshots.version(churchId));
    const parts: string[] = [];
    for (const id of await ids()) {
      const json = records.get(id);
      if (json === undefined) return (await rows()).map(toPerson);
      parts.push(json);
    }
    reply.type('application/json; charset=utf-8').send(`[${parts.join(',')}]`);
    return undefined;
  };
}
