import type { FastifyRequest } from 'fastify';
import { hasPermission, requires, rule, type AccessRule } from '@church/auth';
import { notFound, unauthorized, type DbOrTx, type ServiceDeps } from '@church/common';
import { membershipClient } from '../clients/membership';
import { planMinistries } from '../repos/refs';

/**
 * Who may change doing's records (issue 31: the spec gives every doing write to any signed-in user; a church expects
 * better). Two rules, both written in the README:
 * - a ministry's serving (its plan types, plans and everything of a plan, its templates, its content provider
 *   sign-ins, its range notice): holders of `Plans.Edit` everywhere, and the members of the ministry's own group for
 *   that ministry's records, as the open-source system and B1Admin's serving screens have it (`ministryEditor`);
 * - the church-wide staff work (automations, tasks, workflows and cards): `Plans.Edit` (`staffEditor`), the nearest
 *   permission of the reference to the open-source system's `Tasks.Admin` / `Tasks.Edit`, which ours lacks.
 * What stays open to every signed-in person: their own blockout dates, sign-ups, answers and scheduling preference.
 */
export const staffEditor: AccessRule = requires('Plans.Edit');

/** The caller's groups (asked of membership once per request, only for callers without Plans.Edit). */
const groupsOfRequest = new WeakMap<FastifyRequest, Promise<Set<string>>>();

function callerGroups(req: FastifyRequest, deps: Pick<ServiceDeps, 'internal'>): Promise<Set<string>> {
  let groups = groupsOfRequest.get(req);
  if (!groups) {
    const { churchId, personId } = req.auth;
    groups = personId ? membershipClient(deps.internal).peopleFacts(churchId, [personId]).then(([me]) => new Set(me?.groupIds ?? [])) : Promise.resolve(new Set<string>());
    groupsOfRequest.set(req, groups);
  }
  return groups;
}

/** Kept after the access check for the request's scope (sync readers such as `crud`'s scope). */
const knownGroups = new WeakMap<FastifyRequest, Set<string>>();

/**
 * The declared rule: `Plans.Edit`, or membership of at least one group (a ministry is a group); the handler or the
 * resource's scope narrows it to the ministries the caller belongs to. A caller in no group is refused here.
 */
export const ministryEditor: AccessRule = rule('Plans.Edit or member of the ministry', async (req, auth) => {
  if (hasPermission(auth, 'Plans.Edit')) return true;
  if (!auth.personId) return false;
  const groups = await callerGroups(req, req.server.deps);
  knownGroups.set(req, groups);
  return groups.size > 0;
});

/** The ministries the caller may edit: `undefined` for every one (Plans.Edit), else their groups (read by the access check). */
export function editableMinistries(req: FastifyRequest): Set<string> | undefined {
  if (hasPermission(req.auth, 'Plans.Edit')) return undefined;
  return knownGroups.get(req) ?? new Set();
}

const refused = () => unauthorized('Only holders of Plans.Edit and members of the ministry can do this');

/**
 * The caller's right over ministries, for one request: `Plans.Edit` covers every ministry; otherwise the caller's
 * groups (asked of membership once; a 502 when it is away) and a ministry outside them is a 401.
 */
export function ministryAccess(deps: Pick<ServiceDeps, 'internal'>, req: FastifyRequest) {
  const everywhere = hasPermission(req.auth, 'Plans.Edit');
  const ministry = async (ministryId: string | null | undefined): Promise<void> => {
    if (everywhere) return;
    if (!ministryId || !(await callerGroups(req, deps)).has(ministryId)) throw refused();
  };
  return {
    ministry,
    /** the plan of the caller's church (404 otherwise), once the caller may edit its ministry */
    async plan(db: DbOrTx, planId: string) {
      const [plan] = await planMinistries(db, req.auth.churchId, [planId]);
      if (!plan) throw notFound('Plan');
      await ministry(plan.ministryId);
      return plan;
    },
  };
}
