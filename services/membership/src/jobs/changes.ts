import { randomUUID } from 'node:crypto';
import { changesReported, handle, type ServiceDeps } from '@church/common';
import { insertAudits } from '../repos/audit';

/**
 * Every module's changes (`reportChanges`), written to the church's audit log in one statement per batch: who
 * (user, person, address), what (module, kind of record, id, action) and, in `details`, each changed field before
 * and after. The uuid of a user the log shows is kept even after the account goes.
 */
export function changesJob(deps: ServiceDeps) {
  return handle(changesReported, async ({ records }) => {
    await insertAudits(
      deps.db,
      records.map((r) => ({
        id: randomUUID(),
        churchId: r.churchId,
        userId: r.userId ?? null,
        category: r.module,
        action: r.action,
        entityType: r.entityType,
        entityId: r.entityId,
        details: r.changes && Object.keys(r.changes).length ? JSON.stringify({ changes: r.changes, ...(r.personId ? { personId: r.personId } : {}) }) : r.personId ? JSON.stringify({ personId: r.personId }) : null,
        ipAddress: r.ip ?? null,
        module: r.module,
        createdAt: new Date(r.at),
      })),
    );
  });
}
