import type { FastifyRequest } from 'fastify';
import { hasPermission, requires, rule, type AccessRule } from '@church/auth';
import { actorOf, type ServiceDeps } from '@church/common';
import { callerGroups, ministryAccess } from '../domain/ministry-access';

// The access rules doing's routes declare (`config: { access }`), over the request; what they decide with is
// domain/ministry-access.ts (who may change doing's records, and why).

/** The church-wide staff work (automations, tasks, workflows and cards). */
export const staffEditor: AccessRule = requires('Plans.Edit');

/** The caller's groups (asked of membership once per request, only for callers without Plans.Edit). */
const groupsOfRequest = new WeakMap<FastifyRequest, Promise<Set<string>>>();

function requestGroups(req: FastifyRequest, deps: Pick<ServiceDeps, 'internal'>): Promise<Set<string>> {
  let groups = groupsOfRequest.get(req);
  if (!groups) {
    groups = callerGroups(deps, req.auth);
    groupsOfRequest.set(req, groups);
  }
  return groups;
}

/** Kept after the access check for the request's scope (sync readers such as `crud`'s scope). */
const knownGroups = new WeakMap<FastifyRequest, Set<string>>();

/**
 * A ministry's serving: `Plans.Edit`, or membership of at least one group (a ministry is a group); the handler or
 * the resource's scope narrows it to the ministries the caller belongs to. A caller in no group is refused here.
 */
export const ministryEditor: AccessRule = rule('Plans.Edit or member of the ministry', async (req, auth) => {
  if (hasPermission(auth, 'Plans.Edit')) return true;
  if (!auth.personId) return false;
  const groups = await requestGroups(req, req.server.deps);
  knownGroups.set(req, groups);
  return groups.size > 0;
});

/** The ministries the caller may edit: `undefined` for every one (Plans.Edit), else their groups (read by the access check). */
export function editableMinistries(req: FastifyRequest): Set<string> | undefined {
  if (hasPermission(req.auth, 'Plans.Edit')) return undefined;
  return knownGroups.get(req) ?? new Set();
}

/** The caller's right over ministries for this request (domain's `ministryAccess`), their groups asked at most once. */
export function ministryAccessOf(deps: Pick<ServiceDeps, 'internal'>, req: FastifyRequest) {
  return ministryAccess(actorOf(req), () => requestGroups(req, deps));
}
