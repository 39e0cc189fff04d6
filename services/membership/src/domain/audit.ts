import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { DbOrTx } from '@church/common';
import { insertAudit, type AuditEntry } from '../repos/audit';

/**
 * Writes one audit entry for the request's caller (user and IP from the request) and logs it: what happened in
 * `churchId`, to which record, with `details` kept as JSON text (the audit screen parses it).
 */
export async function audit(
  db: DbOrTx,
  req: FastifyRequest,
  churchId: string,
  entry: Omit<AuditEntry, 'churchId' | 'userId' | 'ipAddress' | 'details'> & { details?: Record<string, unknown> },
): Promise<void> {
  const { details, ...rest } = entry;
  await insertAudit(db, randomUUID(), {
    ...rest,
    churchId,
    userId: req.auth?.id ?? null,
    personId: req.auth?.personId ?? null,
    ipAddress: req.ip,
    details: details ? JSON.stringify(details) : null,
  });
  req.log.warn({ audit: { churchId, userId: req.auth?.id, ...rest, details } }, `audit: ${rest.category} ${rest.action}`);
}
