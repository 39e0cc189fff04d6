import path from 'node:path';
import { fakeInternal, makeChurch as baseMakeChurch, personFacts, useApp, type TokenOptions } from '@church/common/testing';
import { HttpError, type PersonFacts } from '@church/common';
import { buildApp } from '../src/app';

export const MIGRATIONS = path.join(__dirname, '..', 'drizzle');

/** Starts the doing app before the file's tests and closes it after. */
export const useDoing = (opts: Parameters<typeof useApp>[3] = {}) => useApp('doing', MIGRATIONS, buildApp, opts);
export { fakeInternal, type InternalCall } from '@church/common/testing';

/**
 * A church for one test whose `token()` is a coordinator's (Plans.Edit) unless other permissions are named:
 * `token([])` is a member without permissions, `tokenOf(personId)` another member of the church.
 */
export function makeChurch() {
  const church = baseMakeChurch();
  return { ...church, token: (permissions: TokenOptions['permissions'] = ['Plans.Edit'], extra: Partial<TokenOptions> = {}) => church.token(permissions, extra) };
}

/** A person as membership's people facts answer them (Pat Doe unless told otherwise). */
export const person = (facts: Partial<PersonFacts> & { id?: string } = {}): PersonFacts => personFacts({ firstName: 'Pat', lastName: 'Doe', displayName: 'Pat Doe', ...facts });

/** Membership as the doing module sees it: people facts per church, group members, updates recorded. */
export function fakeMembership() {
  const people = new Map<string, PersonFacts[]>();
  const groups = new Map<string, Array<{ personId: string; displayName: string; leader: boolean }>>();
  const updates: Array<{ churchId: string; personId: string; changes: Record<string, unknown> }> = [];
  let down = false;
  const guard = () => {
    if (down) throw new HttpError(502, [{ msg: 'membership answered 503' }]);
  };
  const internal = fakeInternal({
    'POST /membership/internal/people/facts': (body: { churchId: string; ids?: string[] }) => {
      guard();
      const all = people.get(body.churchId) ?? [];
      return body.ids ? all.filter((p) => body.ids!.includes(p.id)) : all;
    },
    'POST /membership/internal/groups/members': (body: { churchId: string; groupId: string }) => {
      guard();
      return (groups.get(`${body.churchId}/${body.groupId}`) ?? []).map((m) => ({ ...m, firstName: null, lastName: null, photo: null }));
    },
    'POST /membership/internal/people/basic': (body: { churchId: string; ids: string[] }) => {
      guard();
      return (people.get(body.churchId) ?? []).filter((p) => body.ids.includes(p.id)).map((p) => ({ id: p.id, displayName: p.displayName, firstName: p.firstName, lastName: p.lastName, photo: null }));
    },
    'POST /membership/internal/people/update': (body: { churchId: string; personId: string; changes: Record<string, unknown> }) => {
      guard();
      updates.push(body);
      return { id: body.personId };
    },
  });
  return {
    internal,
    updates,
    setDown: (value: boolean) => (down = value),
    /** adds people to the church (a person added again replaces their earlier facts) */
    addPeople: (churchId: string, list: PersonFacts[]) => people.set(churchId, [...(people.get(churchId) ?? []).filter((p) => !list.some((q) => q.id === p.id)), ...list]),
    addMember: (churchId: string, groupId: string, personId: string, displayName: string, leader = false) =>
      groups.set(`${churchId}/${groupId}`, [...(groups.get(`${churchId}/${groupId}`) ?? []), { personId, displayName, leader }]),
  };
}
