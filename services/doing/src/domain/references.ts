import { validationFailed, type ServiceDeps } from '@church/common';
import { membershipClient } from '../clients/membership';

/** A group id a body carries (a ministry, a team, a step action's group) and the param that names it (`[0].ministryId`). */
export interface GroupRef {
  param: string;
  id: string | null | undefined;
}

/**
 * Every group a body names must be one of the caller's church's (groups are membership's): asked of membership once
 * for the whole body (a 502 when it is away), before any transaction opens; each id that is not the church's is a 400
 * naming its field. Nothing is asked when the body names no group.
 */
export async function requireGroups(deps: Pick<ServiceDeps, 'internal'>, churchId: string, refs: GroupRef[]): Promise<void> {
  const named = refs.filter((r): r is { param: string; id: string } => typeof r.id === 'string' && r.id !== '');
  if (!named.length) return;
  const known = await membershipClient(deps.internal).groupIds(churchId);
  const errors = named.filter((r) => !known.has(r.id.toLowerCase())).map((r) => ({ msg: `${r.param.replace(/^.*[.\]]/, '')} is not a group of this church`, param: r.param, location: 'body' }));
  if (errors.length) throw validationFailed(errors);
}
