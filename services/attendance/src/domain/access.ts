import { hasPermission, requires, rule } from '@church/auth';
import { unauthorized, type Actor } from '@church/common';

/**
 * The groups a caller may act on for a route whose access reads `<permission> or Group Leader`: `null` (all
 * of the church's groups) with the permission, otherwise only the groups the caller leads (from the token).
 */
export function groupScope(actor: Actor, permission: string): string[] | null {
  return hasPermission(actor, permission, 'AttendanceApi') ? null : actor.leaderGroupIds;
}

/** True when the scope allows the group. */
export function inScope(scope: string[] | null, groupId: string): boolean {
  return scope === null || scope.includes(groupId);
}

/** A leader acting on a group they do not lead is refused like a missing permission (spec: 401). */
export const outOfScope = () => unauthorized('Group leaders may only act on the groups they lead');

export function assertInScope(scope: string[] | null, groupId: string): void {
  if (!inScope(scope, groupId)) throw outOfScope();
}

/**
 * A person's own attendance, or anyone's with `Attendance.View`: the route's `:personId` is the caller's person.
 * (What a person's attendance shows, such as the last Sunday they came, is theirs and the staff's to read.)
 */
export const ownAttendanceOrViewer = requires(
  'Attendance.View',
  rule('own person', (req, auth) => !!auth.personId && (req.params as { personId?: string }).personId?.toLowerCase() === auth.personId.toLowerCase()),
);
