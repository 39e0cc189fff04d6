import type { z } from 'zod';
import { reportChanges, rowsByIds, saveRows, type Actor } from '@church/common';
import { blockedIps } from '../db/schema';
import type { MessagingDeps } from '../deps';
import type { SaveBlockedIp } from '../schemas/blocked-ips';

/**
 * Saves chat blocks (a batch whose references the route checked) in one transaction, in input order. A block is a
 * moderation staff care about: each is reported to the audit log, created or updated.
 */
export function saveBlockedIps(deps: Pick<MessagingDeps, 'db' | 'module' | 'queue'>, actor: Actor, items: Array<z.output<typeof SaveBlockedIp>>) {
  const { churchId } = actor;
  return deps.db.transaction(async (tx) => {
    const before = new Map((await rowsByIds(tx, blockedIps, churchId, items.map((i) => i.id).filter((id): id is string => !!id))).map((r) => [r.id, r]));
    const saved = await saveRows(tx, blockedIps, churchId, items, 'Blocked IP');
    await reportChanges(
      deps,
      saved.map((after) => ({ churchId, entityType: 'blockedIp', entityId: after.id, action: before.has(after.id) ? 'updated' : 'created', before: before.get(after.id), after })),
      { req: actor, tx },
    );
    return saved;
  });
}
