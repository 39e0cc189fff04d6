import { randomUUID } from 'node:crypto';
import type { Actor, DbOrTx } from '@church/common';
import { insertAudit, type AuditEntry } from '../repos/audit';

/**
 * Writes one audit entry for the actor (user and address from the request it came with) and logs it: what
 * happened in `churchId`, to which record, with `details` kept as JSON text (the audit screen parses it).
 */
export async function audit(
  db: DbOrTx,
  actor: Actor,
  churchId: string,
  entry: Omit<AuditEntry, 'churchId' | 'userId' | 'ipAddress' | 'details'> & { details?: Record<string, unknown> },
): Promise<void> {
  const { details, ...rest } = entry;
  await insertAudit(db, randomUUID(), {
    ...rest,
    churchId,
    userId: actor.id ?? null,
    personId: actor.personId ?? null,
    ipAddress: actor.ip,
    details: details ? JSON.stringify(details) : null,
  });
  actor.log.warn({ audit: { churchId, userId: actor.id, ...rest, details } }, `audit: ${rest.category} ${rest.action}`);
}
