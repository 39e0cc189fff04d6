import { callInternal, churchNameOf, membershipInternal, type PersonContact, type ServiceDeps } from '@church/common';

/** What messaging asks membership, one typed call per contract (`callInternal`: one failure policy). */

/** Membership's contact data of people (by ids) or of a group's members. */
export async function contacts(deps: Pick<ServiceDeps, 'internal'>, churchId: string, by: { ids?: string[]; groupId?: string }): Promise<Array<PersonContact & { leader: boolean }>> {
  if (by.ids && !by.ids.length) return [];
  return callInternal(deps.internal, membershipInternal.contacts, { churchId, ...by });
}

/** Sets the opted-out flag of every person of the church with this phone; answers their ids. */
export async function optOut(deps: Pick<ServiceDeps, 'internal'>, churchId: string, phone: string, optedOut: boolean): Promise<string[]> {
  return (await callInternal(deps.internal, membershipInternal.optOut, { churchId, phone, optedOut })).personIds;
}

/** The church's name (merge field `{{churchName}}`); empty when membership cannot say. */
export function churchName(deps: Pick<ServiceDeps, 'internal'>, churchId: string): Promise<string> {
  return churchNameOf(deps.internal, churchId).catch(() => '');
}

/** The caller's groups (for `posts`), from membership's people facts. */
export async function groupIdsOf(deps: Pick<ServiceDeps, 'internal'>, churchId: string, personId: string): Promise<string[]> {
  const [facts] = await callInternal(deps.internal, membershipInternal.peopleFacts, { churchId, ids: [personId] });
  return facts?.groupIds ?? [];
}

/**
 * The church's time zone (IANA), the clock its reminders keep. Membership's `church` contract does not carry it yet
 * (asked of the lead: `timeZone: string | null` in `membershipInternal.church`'s answer, the church's own setting);
 * until it does, every church keeps the deployment's `REMINDER_TIME_ZONE` (UTC unless set).
 */
export async function churchTimeZone(deps: { config: { REMINDER_TIME_ZONE: string } }, _churchId: string): Promise<string> {
  return deps.config.REMINDER_TIME_ZONE;
}
