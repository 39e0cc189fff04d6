import type { FastifyRequest } from 'fastify';
import { validationFailed, type ServiceDeps } from '@church/common';
import { membershipClient } from '../clients/membership';

/** A group id a body carries (a ministry, a team, a step action's group) and the param that names it (`[0].ministryId`). */
export interface GroupRef {
  param: string;
  id: string | null | undefined;
}

/** The church's groups, asked of membership once per request (a batch's items share the answer). */
const groupsOfRequest = new WeakMap<FastifyRequest, Promise<Set<string>>>();

/**
 * Every group a body names must be one of the caller's church's (groups are membership's): asked of membership once
 * per request (a 502 when it is away), before any transaction opens; each id that is not the church's is a 400
 * naming its field. Nothing is asked when the body names no group.
 */
export async function requireGroups(deps: Pick<ServiceDeps, 'internal'>, req: FastifyRequest, refs: GroupRef[]): Promise<void> {
  const named = refs.filter((r): r is { param: string; id: string } => typeof r.id === 'string' && r.id !== '');
  if (!named.length) return;
  let known = groupsOfRequest.get(req);
  if (!known) {
    known = membershipClient(deps.internal).groupIds(req.auth.churchId);
    groupsOfRequest.set(req, known);
  }
  const groups = await known;
  const errors = named.filter((r) => !groups.has(r.id.toLowerCase())).map((r) => ({ msg: `${r.param.replace(/^.*[.\]]/, '')} is not a group of this church`, param: r.param, location: 'body' }));
  if (errors.length) throw validationFailed(errors);
}
