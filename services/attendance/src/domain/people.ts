import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { hasPermission } from '@church/auth';
import { membershipInternal, unauthorized, type InternalClient } from '@church/common';
import { fromMembership } from './membership';

/** How long a person's household (and that they are a live person of the church) is trusted without asking again. */
export const PEOPLE_TTL_MS = 30_000;
/** Kept people across all churches; past this the least recently used church's people are dropped. */
const MAX_KEPT = 50_000;

interface Kept {
  householdId: string | null;
  at: number;
}

/**
 * Membership's facts about people, kept briefly per church: whether an id is a live person of the church and
 * their household. Only people that exist are kept (a person added in membership a moment ago — a kiosk's new
 * visitor — must not be refused from a kept "no such person"); a removal or a household move is seen within
 * `PEOPLE_TTL_MS`. What is not kept is asked for in one batched `peopleFacts` call, so a request costs at most
 * one internal call and a warm church none.
 */
export function peopleCache(now: () => number = Date.now) {
  const churches = new Map<string, Map<string, Kept>>();
  let size = 0;

  const churchOf = (churchId: string) => {
    let people = churches.get(churchId);
    if (people) churches.delete(churchId); // most recently used last
    else people = new Map();
    churches.set(churchId, people);
    return people;
  };

  return {
    /** The live people of the church among `ids`, by id, with their household (null: none). */
    async households(internal: InternalClient, churchId: string, ids: string[]): Promise<Map<string, string | null>> {
      const people = churchOf(churchId);
      const found = new Map<string, string | null>();
      const missing: string[] = [];
      const fresh = now() - PEOPLE_TTL_MS;
      for (const id of new Set(ids)) {
        const kept = people.get(id);
        if (kept && kept.at > fresh) found.set(id, kept.householdId);
        else missing.push(id);
      }
      if (!missing.length) return found;
      const body: z.input<typeof membershipInternal.peopleFacts.body> = { churchId, ids: missing };
      const facts = await fromMembership<Array<{ id: string; householdId: string | null }>>(
        internal,
        membershipInternal.peopleFacts.path,
        body,
        false,
        (data) => membershipInternal.peopleFacts.answer.safeParse(data).success,
      );
      const at = now();
      const asked = new Set(missing);
      for (const { id, householdId } of facts) {
        if (!asked.has(id)) continue; // only what was asked
        found.set(id, householdId);
        if (!people.has(id)) size++;
        people.set(id, { householdId, at });
      }
      while (size > MAX_KEPT && churches.size > 1) {
        const [oldest, dropped] = churches.entries().next().value!;
        churches.delete(oldest);
        size -= dropped.size;
      }
      return found;
    },
  };
}
export type PeopleCache = ReturnType<typeof peopleCache>;

/**
 * Who a check-in caller may act on. Holders of `full` (any of the listed permissions) act on anyone in the
 * church: `null`. A caller whose only attendance right is `Attendance.Checkin` acts on their own household:
 * every one of `personIds` must be the caller or a live person of the caller's household, else 401. The
 * caller's person and the people are asked for together (one call at most, see `peopleCache`). Answers what
 * it learnt (the live people among the ids), so the caller's submission check needs no second call.
 */
export async function householdScope(
  req: FastifyRequest,
  internal: InternalClient,
  cache: PeopleCache,
  full: string[],
  personIds: string[],
): Promise<{ full: boolean; known: Map<string, string | null> | null }> {
  if (full.some((permission) => hasPermission(req.auth, permission, 'AttendanceApi'))) return { full: true, known: null };
  const self = req.auth.personId;
  if (!self) throw unauthorized('Check-in without Attendance.View or Attendance.Edit is for your own household; your login has no person');
  const known = await cache.households(internal, req.auth.churchId, [self, ...personIds]);
  if (!known.has(self)) throw unauthorized('Check-in without Attendance.View or Attendance.Edit is for your own household; your person is not in this church');
  const household = known.get(self);
  for (const id of personIds) {
    if (id === self) continue;
    if (!household || known.get(id) !== household) throw unauthorized('Check-in without Attendance.View or Attendance.Edit is for people of your own household only');
  }
  return { full: false, known };
}
