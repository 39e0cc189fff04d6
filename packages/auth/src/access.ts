import type { FastifyRequest } from 'fastify';
import type { Claims } from './token';
import { apiForPermission, normalizePermission, PERMISSIONS, permissionKey, SERVER_ADMIN, type ApiName } from './permissions';

/**
 * How a route is reached, declared next to the route as the spec's Auth/Permission columns read:
 * `'public'`, `'internal'` (signed server-to-server calls), or a rule over the caller's token.
 */
export type Access = 'public' | 'internal' | AccessRule;

/** A rule over an authenticated request; `text` is what the spec's Permission column says. */
export interface AccessRule {
  readonly text: string;
  check(req: FastifyRequest, auth: Claims, ownApi: ApiName): boolean | Promise<boolean>;
}

/** True when the token holds the permission (or `Server.Admin`). */
export function hasPermission(auth: Claims, permission: string, ownApi: ApiName = 'MembershipApi'): boolean {
  if (isServerAdmin(auth)) return true;
  const key = normalizePermission(permission);
  return auth.permissions[apiForPermission(key, ownApi)]?.includes(key) ?? false;
}

/** Server admins pass every permission check in every church. */
export function isServerAdmin(auth: Claims): boolean {
  return auth.permissions.MembershipApi?.includes(permissionKey('Server', 'Admin')) ?? false;
}

const MEMBER_STATUSES = new Set(['member', 'staff']);

/** Spec `Member`: People / View Members, or the caller's own status is Member or Staff (NOTES.md). */
export function isMember(auth: Claims): boolean {
  return (
    hasPermission(auth, 'People.View Members') || MEMBER_STATUSES.has((auth.membershipStatus ?? '').toLowerCase())
  );
}

/** Spec `Group Leader`: the caller leads at least one group (route handlers narrow to those groups). */
export function isGroupLeader(auth: Claims): boolean {
  return auth.leaderGroupIds.length > 0;
}

/** Any authenticated user (spec Permission `—`). */
export const anyUser: AccessRule = { text: '—', check: () => true };

/** A named rule over the request, for terms such as `own record` or `Form access`. */
export function rule(text: string, check: AccessRule['check']): AccessRule {
  return { text, check };
}

/** Terms the spec writes that are not `ContentType.Action` permissions. */
const NAMED_TERMS: Record<string, AccessRule['check']> = {
  member: (_req, auth) => isMember(auth),
  'group leader': (_req, auth) => isGroupLeader(auth),
  editself: (_req, auth, api) => hasPermission(auth, 'People.Edit Self', api),
};

/** Every permission a role can hold, by key: a route naming anything else fails when it is registered. */
const KNOWN_PERMISSIONS = new Set([...PERMISSIONS, SERVER_ADMIN].map((p) => permissionKey(p.contentType, p.action)));

/**
 * Access as the spec's Permission column reads it: `requires('People.View or Member')`. Terms may also
 * be rules, for conditions that read the request: `requires('People.View', ownRecord)`.
 */
export function requires(...terms: Array<string | AccessRule>): AccessRule {
  const parts: AccessRule[] = terms.flatMap((term) => {
    if (typeof term !== 'string') return [term];
    return term.split(/\s+or\s+/i).map((text): AccessRule => {
      const named = NAMED_TERMS[text.trim().toLowerCase()];
      if (named) return { text, check: named };
      if (!/^[A-Za-z]+\.[A-Za-z ]+$/.test(text.trim())) throw new Error(`unknown access term "${text}"`);
      // A typo in a permission name fails the service's boot, not every caller of the route.
      if (!KNOWN_PERMISSIONS.has(normalizePermission(text.trim()))) throw new Error(`unknown permission "${text}": not in the permission list`);
      return { text, check: (_req, auth, api) => hasPermission(auth, text, api) };
    });
  });
  return {
    text: parts.map((p) => p.text).join(' or '),
    async check(req, auth, api) {
      for (const part of parts) if (await part.check(req, auth, api)) return true;
      return false;
    },
  };
}
