import type { FastifyInstance, FastifyReply } from 'fastify';
import { peopleColumns, type PeopleColumns } from '../../domain/people/advanced-match';
import { toPerson } from '../../domain/people/person';
import { MEMBER_LEVEL_STATUSES } from '../../lib/people';
import { listPeople, type PersonRecord, type Scope } from '../../repos/people';

/**
 * Each live person's record as the routes write it (`JSON.stringify(toPerson(row))`), all in one buffer, by id,
 * with the text a name search matches. One buffer rather than 10,000 strings: it stays off the JavaScript
 * heap, so it adds nothing to the garbage collector's work on every major collection, and answers are
 * assembled from slices of it without copies.
 */
interface Serialized {
  json: Buffer;
  /** id → position in `starts` / `ends` */
  index: Map<string, number>;
  starts: Uint32Array;
  ends: Uint32Array;
  /**
   * The searched fields of every person, lower-cased, each field followed by a line break: display, first,
   * last and nick name, email, and "first last". A hit of a term without a line break lies inside one field.
   */
  names: string;
  /** where each person's fields start in `names`, and one more entry for the end */
  nameStarts: Uint32Array;
  /** every three characters that stand together in a searched field → the people (positions) they stand in */
  trigrams: Map<string, number[]>;
  /** 1 where a member-level viewer sees the person (Member or Staff, not opted out) */
  memberLevel: Uint8Array;
  /** the fields advanced search compares, one column each (see domain/people/advanced-match.ts) */
  columns: PeopleColumns;
}

const searchedFields = (row: PersonRecord) =>
  [row.displayName, row.firstName, row.lastName, row.nickName, row.email, `${row.firstName ?? ''} ${row.lastName ?? ''}`].map((f) => (f ?? '').toLowerCase());

function serialize(rows: PersonRecord[]): Serialized {
  const parts = rows.map((row) => Buffer.from(JSON.stringify(toPerson(row))));
  const starts = new Uint32Array(parts.length);
  const ends = new Uint32Array(parts.length);
  const nameStarts = new Uint32Array(parts.length + 1);
  const memberLevel = new Uint8Array(parts.length);
  const index = new Map<string, number>();
  const trigrams = new Map<string, number[]>();
  const names: string[] = [];
  let at = 0;
  let nameAt = 0;
  parts.forEach((part, i) => {
    const row = rows[i]!;
    starts[i] = at;
    at += part.length;
    ends[i] = at;
    index.set(row.id, i);
    const fields = searchedFields(row);
    for (const field of fields) {
      for (let p = 0; p + 3 <= field.length; p++) {
        const key = field.slice(p, p + 3);
        const people = trigrams.get(key);
        if (!people) trigrams.set(key, [i]);
        else if (people[people.length - 1] !== i) people.push(i);
      }
    }
    const text = `${fields.join('\n')}\n`;
    names.push(text);
    nameStarts[i] = nameAt;
    nameAt += text.length;
    memberLevel[i] = MEMBER_LEVEL_STATUSES.includes(row.membershipStatus ?? '') && !row.optedOut ? 1 : 0;
  });
  nameStarts[parts.length] = nameAt;
  return { json: Buffer.concat(parts, at), index, starts, ends, names: names.join(''), nameStarts, trigrams, memberLevel, columns: peopleColumns(rows) };
}

/**
 * The positions of the people whose searched fields contain `term` (case-insensitive), in the records' order.
 * A term of three characters or more is looked up by its rarest trigram and each of those people checked;
 * a shorter one is found by scanning the text.
 */
function matching(records: Serialized, term: string, scope: Scope): number[] {
  const needle = term.toLowerCase();
  const { names, nameStarts, memberLevel } = records;
  const visible = (i: number) => !scope.membersOnly || memberLevel[i] === 1;
  if (needle.length >= 3) {
    let fewest: number[] | undefined;
    for (let p = 0; p + 3 <= needle.length; p++) {
      const people = records.trigrams.get(needle.slice(p, p + 3));
      if (!people) return [];
      if (!fewest || people.length < fewest.length) fewest = people;
    }
    return fewest!.filter((i) => visible(i) && names.slice(nameStarts[i], nameStarts[i + 1]).includes(needle));
  }
  const found: number[] = [];
  let from = 0;
  for (;;) {
    const hit = names.indexOf(needle, from);
    if (hit < 0) return found;
    // the person whose fields hold the hit: the last start at or before it
    let lo = 0;
    let hi = nameStarts.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (nameStarts[mid]! <= hit) lo = mid;
      else hi = mid - 1;
    }
    if (visible(lo)) found.push(lo);
    from = nameStarts[lo + 1]!;
  }
}

// the JSON, the id map, per character of searched text its 2 bytes plus about 8 of trigram postings, and the
// advanced-search columns (about 400 bytes a person)
const sizeOf = (records: Serialized) => records.json.length + records.index.size * 464 + records.names.length * 10;
const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** The records at these positions as one JSON array. */
function answerOf(records: Serialized, positions: number[]): Buffer {
  const parts: Buffer[] = [OPEN];
  for (const i of positions) {
    if (parts.length > 1) parts.push(COMMA);
    parts.push(records.json.subarray(records.starts[i], records.ends[i]));
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

/**
 * Answers searches from the church's serialized person records, built from one read of the whole church and
 * kept per data version (snapshots in @church/common). A name search is matched over the records' searched
 * text in memory (by trigram); other searches ask PostgreSQL for the matching ids. A search for "Smi" in a
 * church of 10,000 then costs the version lookup and a check of the hundred-odd people the trigram names, and
 * serializes nothing.
 */
export function personRecords(app: FastifyInstance) {
  const serialized = async (churchId: string) =>
    app.deps.snapshots.value(
      `person-records\n${churchId}`,
      await app.deps.snapshots.version(churchId),
      async () => serialize(await listPeople(app.db, churchId, {})),
      sizeOf,
    );
  const send = (reply: FastifyReply, body: Buffer) => void reply.type('application/json; charset=utf-8').send(body);

  return {
    /**
     * The people `ids` finds, a query over the same live people as `listPeople` (any scope narrower than the
     * church is fine). When a record is missing, a change landed between the two reads: `rows` answers the
     * usual way.
     */
    async byIds(reply: FastifyReply, churchId: string, ids: () => Promise<string[]>, rows: () => Promise<PersonRecord[]>) {
      return send(reply, await this.jsonByIds(churchId, ids, rows));
    },

    /** `byIds`'s answer as JSON text (what the route's serializer would write: the records are `exactShape`). */
    async jsonByIds(churchId: string, ids: () => Promise<string[]>, rows: () => Promise<PersonRecord[]>): Promise<Buffer> {
      const records = await serialized(churchId);
      const positions: number[] = [];
      for (const id of await ids()) {
        const i = records.index.get(id);
        if (i === undefined) return Buffer.from(JSON.stringify((await rows()).map(toPerson)));
        positions.push(i);
      }
      return answerOf(records, positions);
    },

    /**
     * The people for whom `test` holds (given the church's columns), in the records' order; undefined when
     * `test` cannot be built from the records (the caller then asks PostgreSQL).
     */
    async matching(churchId: string, makeTest: (columns: PeopleColumns) => ((i: number) => boolean) | undefined, scope: Scope): Promise<Buffer | undefined> {
      const records = await serialized(churchId);
      const test = makeTest(records.columns);
      if (!test) return undefined;
      const positions: number[] = [];
      const n = records.starts.length;
      for (let i = 0; i < n; i++) if ((!scope.membersOnly || records.memberLevel[i] === 1) && test(i)) positions.push(i);
      return answerOf(records, positions);
    },

    /** People any of whose display, first, last or nick name, email or "first last" contains `term`, by name. */
    async byName(reply: FastifyReply, churchId: string, term: string, scope: Scope) {
      const records = await serialized(churchId);
      return send(reply, answerOf(records, matching(records, term, scope)));
    },
  };
}
