import { hasPermission } from '@church/auth';
import { unauthorized, type Actor, type InternalClient } from '@church/common';
import { households, peopleVersion } from '../clients/membership';

/** Kept people (and ids known not to be live people) across all churches; past this the least recently used church's go. */
const MAX_KEPT = 50_000;

/** Ids asked for one call at a time at a version; past this many, the church's whole list is loaded for it instead. */
export const WHOLE_AFTER = 100;

interface Kept {
  /** membership's data version these people were learnt under */
  version: string;
  /** live people of the church by id, with their household (null: none) */
  people: Map<string, string | null>;
  /** ids that are not live people of the church */
  strangers: Set<string>;
  /** ids asked for one call at a time at this version */
  asked: number;
  /** the whole church is in `people` (any other id is no live person of it), or is being loaded */
  whole?: 'loaded' | 'too big' | Promise<unknown>;
}

/**
 * Membership's facts about people, kept per church and per version of the church's people: whether an id is a
 * live person of the church, and their household. Every use asks membership whether the church's people
 * changed (one small call for its data version, shared by concurrent requests); a change drops what was
 * kept. So a person added in membership a moment ago is accepted and a removed one refused at once, and a
 * household move is seen at once. What is not kept is asked for after the version (so it is at least as new as
 * the version it is filed under): the request's unknown ids in one `peopleFacts` call while few were asked
 * at this version (a kiosk's household), and once more than `WHOLE_AFTER` were, the church's whole list, once
 * for the version and for every request that waits on it (a busy Sunday: every person checks in once, so
 * ids asked one by one would never be asked twice). A warm church then costs a request only the version call.
 *
 * `maxAgeMs` lets a caller skip even that call: a version asked for at most that long ago is taken as the
 * church's current one, for the people it keeps. What it does not keep as live (ids it never saw, and ids kept
 * as no person of the church) is still asked for, so a refusal is always membership's answer of now, and only
 * an acceptance can be up to `maxAgeMs` old (a person removed, or moved out of a household, that long ago).
 */
export function peopleCache() {
  const churches = new Map<string, Kept>();
  /** per church, the last version membership answered and when it was asked for (`performance.now()`) */
  const probed = new Map<string, { version: string; at: number }>();
  let size = 0;

  /** The church's kept people at `version`, most recently used last; what another version kept is dropped. */
  const keptAt = (churchId: string, version: string): Kept => {
    let kept = churches.get(churchId);
    if (kept) {
      churches.delete(churchId);
      if (kept.version !== version) {
        size -= kept.people.size + kept.strangers.size;
        kept = undefined;
      }
    }
    kept ??= { version, people: new Map(), strangers: new Set(), asked: 0 };
    churches.set(churchId, kept);
    return kept;
  };

  /** Drops the least recently used churches' people past `MAX_KEPT`. */
  const trim = () => {
    while (size > MAX_KEPT && churches.size) {
      const [oldest, dropped] = churches.entries().next().value!;
      churches.delete(oldest);
      probed.delete(oldest);
      size -= dropped.people.size + dropped.strangers.size;
    }
  };

  /** Loads the church's whole list into `kept` (unless it is no longer the church's kept version, or too big to keep). */
  const loadWhole = async (internal: InternalClient, churchId: string, kept: Kept) => {
    const all = await households(internal, churchId);
    if (all.length > MAX_KEPT) {
      kept.whole = 'too big';
      return;
    }
    const people = new Map<string, string | null>();
    for (const { id, householdId } of all) people.set(id, householdId);
    if (churches.get(churchId) === kept) size += people.size - kept.people.size - kept.strangers.size;
    kept.people = people;
    kept.strangers = new Set();
    kept.whole = 'loaded';
    trim();
  };

  return {
    /**
     * The live people of the church among `ids`, by id, with their household (null: none). With `maxAgeMs`, the
     * people kept at a version asked for at most that long ago count as live without asking again (see above).
     */
    async households(internal: InternalClient, churchId: string, ids: string[], maxAgeMs = 0): Promise<Map<string, string | null>> {
      const last = probed.get(churchId);
      const reused = maxAgeMs > 0 && last !== undefined && performance.now() - last.at <= maxAgeMs;
      let version: string;
      if (reused) version = last.version;
      else {
        const at = performance.now();
        version = await peopleVersion(internal, churchId);
        const newest = probed.get(churchId);
        if (!newest || newest.at < at) probed.set(churchId, { version, at });
      }
      const kept = keptAt(churchId, version);
      if (kept.whole instanceof Promise) await kept.whole;
      const found = new Map<string, string | null>();
      let missing: Set<string> | undefined;
      const look = () => {
        missing = undefined;
        for (const id of ids) {
          const householdId = kept.people.get(id);
          if (householdId !== undefined) found.set(id, householdId);
          // at a reused version, "no person of the church" is not taken from what is kept: membership is asked
          else if (reused || (kept.whole !== 'loaded' && !kept.strangers.has(id))) (missing ??= new Set()).add(id);
        }
      };
      look();
      if (!missing) return found;
      if (kept.whole === undefined && kept.asked + missing.size > WHOLE_AFTER) {
        kept.whole = loadWhole(internal, churchId, kept).catch((err: unknown) => {
          kept.whole = undefined; // a later request tries again
          throw err;
        });
        await kept.whole;
        look();
        if (!missing) return found;
      }
      kept.asked += missing.size;
      const answer = await households(internal, churchId, [...missing]);
      // Filed only while this version is still the church's kept one (a newer version may have replaced it).
      const file = churches.get(churchId) === kept && kept.whole !== 'loaded';
      const asked: Set<string> = missing;
      for (const { id, householdId } of answer) {
        if (!asked.delete(id)) continue; // only what was asked, once
        found.set(id, householdId);
        if (file && !kept.people.has(id)) {
          kept.people.set(id, householdId);
          size++;
        }
      }
      if (!file) return found;
      // what membership did not answer is no live person of the church at this version
      for (const id of asked) {
        if (kept.strangers.has(id)) continue;
        kept.strangers.add(id);
        size++;
      }
      trim();
      return found;
    },
  };
}
export type PeopleCache = ReturnType<typeof peopleCache>;

/**
 * Who a check-in caller may act on. Holders of `full` (any of the listed permissions) act on anyone in the
 * church: `null`. A caller whose only attendance right is `Attendance.Checkin` acts on their own household:
 * every one of `personIds` must be the caller or a live person of the caller's household, else 401. The
 * caller's person and the people are looked up together (see `peopleCache`). Answers what
 * it learnt (the live people among the ids), so the caller's submission check needs no second call.
 */
export async function householdScope(
  actor: Actor,
  internal: InternalClient,
  cache: PeopleCache,
  full: string[],
  personIds: string[],
): Promise<{ full: boolean; known: Map<string, string | null> | null }> {
  if (full.some((permission) => hasPermission(actor, permission, 'AttendanceApi'))) return { full: true, known: null };
  const self = actor.personId;
  if (!self) throw unauthorized('Check-in without Attendance.View or Attendance.Edit is for your own household; your login has no person');
  const known = await cache.households(internal, actor.churchId, [self, ...personIds]);
  if (!known.has(self)) throw unauthorized('Check-in without Attendance.View or Attendance.Edit is for your own household; your person is not in this church');
  const household = known.get(self);
  for (const id of personIds) {
    if (id === self) continue;
    if (!household || known.get(id) !== household) throw unauthorized('Check-in without Attendance.View or Attendance.Edit is for people of your own household only');
  }
  return { full: false, known };
}
