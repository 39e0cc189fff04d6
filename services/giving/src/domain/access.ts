import { hasPermission, type Claims } from '@church/auth';
import { unauthorized } from '@church/common';

// The spec's "own" terms, decided in domain code once the record is known. The access rules a route declares
// (`own personId` from the path, `own customer` looked up, `own …` from the body) are in routes/access.ts.

/** Throws 401 unless the caller holds the permission or the record belongs to their own person. */
export function assertOwnPerson(actor: Claims, permission: string, personId: string | null | undefined): void {
  if (hasPermission(actor, permission, 'GivingApi')) return;
  if (actor.personId && personId && personId.toLowerCase() === actor.personId.toLowerCase()) return;
  throw unauthorized(`Missing permission: ${permission} or own record`);
}
