import { HttpError, membershipInternal, providerFailed, type PersonContact, type ServiceDeps } from '@church/common';

/** Membership's contact data of people (by ids) or of a group's members, over signed internal HTTP. */
export async function contacts(deps: Pick<ServiceDeps, 'internal'>, churchId: string, by: { ids?: string[]; groupId?: string }): Promise<Array<PersonContact & { leader: boolean }>> {
  if (by.ids && !by.ids.length) return [];
  try {
    const body = membershipInternal.contacts.body.parse({ churchId, ...by });
    return membershipInternal.contacts.answer.parse(await deps.internal.post('membership', membershipInternal.contacts.path, body));
  } catch (err) {
    if (err instanceof HttpError && err.statusCode < 500) throw err;
    throw providerFailed('Membership', err instanceof Error ? err.message : undefined);
  }
}

/** Sets the opted-out flag of every person of the church with this phone; answers their ids. */
export async function optOut(deps: Pick<ServiceDeps, 'internal'>, churchId: string, phone: string, optedOut: boolean): Promise<string[]> {
  const body = membershipInternal.optOut.body.parse({ churchId, phone, optedOut });
  return membershipInternal.optOut.answer.parse(await deps.internal.post('membership', membershipInternal.optOut.path, body)).personIds;
}

/** The church's name (merge field `{{churchName}}`); empty when membership cannot say. */
export async function churchName(deps: Pick<ServiceDeps, 'internal'>, churchId: string): Promise<string> {
  try {
    const body = membershipInternal.church.body.parse({ churchId });
    return membershipInternal.church.answer.parse(await deps.internal.post('membership', membershipInternal.church.path, body)).name;
  } catch {
    return '';
  }
}

/** The caller's groups (for `posts`), from membership's people facts. */
export async function groupIdsOf(deps: Pick<ServiceDeps, 'internal'>, churchId: string, personId: string): Promise<string[]> {
  try {
    const body = membershipInternal.peopleFacts.body.parse({ churchId, ids: [personId] });
    const [facts] = membershipInternal.peopleFacts.answer.parse(await deps.internal.post('membership', membershipInternal.peopleFacts.path, body));
    return facts?.groupIds ?? [];
  } catch (err) {
    throw providerFailed('Membership', err instanceof Error ? err.message : undefined);
  }
}

/** Phone numbers compared by digits (E.164 without the plus, US numbers with their country code). */
export function normalizePhone(phone: string): string {
  const digits = phone.replace(/[^0-9]/g, '');
  return digits.length === 10 ? `1${digits}` : digits;
}

/** E.164 for sending. */
export function e164(phone: string): string {
  return `+${normalizePhone(phone)}`;
}
