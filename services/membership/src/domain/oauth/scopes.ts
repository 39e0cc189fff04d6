import { PERMISSIONS, SERVER_ADMIN, permissionKey } from '@church/auth';
import type { HeldPermission } from '../../repos/roles';

/**
 * OAuth scopes and the permissions each lets a token keep. A scope never grants anything by itself: the
 * token holds the approving user's permissions in the church intersected with the union of its scopes.
 * `offline_access` is accepted for clients that always ask for it; refresh tokens are issued regardless.
 */
export const OAUTH_SCOPES = new Map<string, { description: string; permissions: string[] }>(Object.entries({
  'people:read': { description: 'View people', permissions: ['People.View', 'People.View Members'] },
  'people:write': { description: 'Edit people and read confidential notes', permissions: ['People.Edit', 'People.View Confidential Notes'] },
  'households:write': { description: 'Edit households', permissions: ['Households.Edit'] },
  'groups:read': { description: 'View group rosters', permissions: ['Group Members.View'] },
  'groups:write': { description: 'Edit groups and their members', permissions: ['Groups.Edit', 'Group Members.Edit'] },
  'attendance:read': { description: 'View attendance', permissions: ['Attendance.View', 'Attendance.View Summary'] },
  'attendance:write': { description: 'Record attendance and check people in', permissions: ['Attendance.Edit', 'Attendance.Checkin', 'Services.Edit'] },
  'donations:read': { description: 'View donations', permissions: ['Donations.View', 'Donations.View Summary'] },
  'donations:write': { description: 'Record donations', permissions: ['Donations.Edit'] },
  'forms:write': { description: 'Edit forms', permissions: ['Forms.Edit'] },
  'plans:write': { description: 'Edit service plans', permissions: ['Plans.Edit'] },
  'content:write': { description: 'Edit website content and streaming', permissions: ['Content.Edit', 'StreamingServices.Edit'] },
  'messaging:send': { description: 'Send text messages', permissions: ['Texting.Send'] },
  'roles:read': { description: 'View roles', permissions: ['Roles.View'] },
  offline_access: { description: 'Stay signed in (refresh tokens)', permissions: [] },
}));

/** Names in a space-delimited (or array) scope value, deduplicated, in order. */
export function parseScopes(scope: string | string[] | null | undefined): string[] {
  const parts = Array.isArray(scope) ? scope : (scope ?? '').split(/[\s,]+/);
  return [...new Set(parts.map((s) => s.trim()).filter(Boolean))];
}

/** Scope names this server does not know. */
export function unknownScopes(scopes: string[]): string[] {
  return scopes.filter((s) => !OAUTH_SCOPES.has(s));
}

/** Canonical permission keys the scopes allow a token to keep. */
export function scopeKeys(scopes: string[]): Set<string> {
  const keys = new Set<string>();
  for (const s of scopes) for (const p of OAUTH_SCOPES.get(s)?.permissions ?? []) keys.add(p.replace(/\s+/g, ''));
  return keys;
}

/**
 * Narrows a user's permissions to what the scopes allow. A server admin counts as holding every church
 * permission, but `Server.Admin` itself never reaches an OAuth token.
 */
export function narrowPermissions(held: HeldPermission[], scopes: string[]): HeldPermission[] {
  const serverAdmin = held.some((p) => p.contentType === SERVER_ADMIN.contentType && p.action === SERVER_ADMIN.action);
  const pool: HeldPermission[] = serverAdmin ? [...PERMISSIONS] : held;
  const allowed = scopeKeys(scopes);
  return pool.filter((p) => allowed.has(permissionKey(p.contentType, p.action)) && p.contentType !== 'Server');
}
