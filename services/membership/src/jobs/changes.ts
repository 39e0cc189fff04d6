import { changesReported, handle, workflowEvents, type ChangeRecord } from '@church/common';
import type { MembershipDeps } from '../deps';
import { insertAudits } from '../repos/audit';
import { stableUuid } from '../domain/secrets';
import { fanOut } from '../domain/webhooks';

/** The audit screen's categories (its filter) by the kind of record a change is about; others are their own kind. */
const CATEGORY = new Map<string, string>([
  ...['person', 'household', 'personField', 'personFieldValue', 'visibilityPreference', 'householdPickup', 'list'].map((k) => [k, 'person'] as const),
  ...['group', 'groupMember', 'groupJoinRequest', 'associatedGroup'].map((k) => [k, 'group'] as const),
  ...['role', 'roleMember', 'rolePermission', 'apiKey', 'userChurch', 'oauthConnection'].map((k) => [k, 'permission'] as const),
  ...['form', 'question', 'formSubmission', 'answer', 'memberPermission'].map((k) => [k, 'form'] as const),
  ...['setting', 'domain', 'church', 'webhook', 'site', 'batch'].map((k) => [k, 'settings'] as const),
  ...['donation', 'fundDonation', 'fund', 'donationBatch', 'subscription', 'gateway', 'pledge', 'campaign'].map((k) => [k, 'donation'] as const),
]);

/** Each field's value before and after, as the audit screen reads `details.before` / `details.after`. */
function detailsOf(r: ChangeRecord): string | null {
  const changes = r.changes ?? {};
  const fields = Object.keys(changes);
  if (!fields.length && !r.personId) return null;
  const side = (which: 'before' | 'after') => Object.fromEntries(fields.map((f) => [f, changes[f]![which]]));
  return JSON.stringify({
    ...(fields.length ? { changes, before: r.action === 'created' ? null : side('before'), after: r.action === 'destroyed' ? null : side('after') } : {}),
    ...(r.personId ? { personId: r.personId } : {}),
  });
}

/**
 * Every module's changes (`reportChanges`), written to the church's audit log in one statement per batch: who
 * (user, person, address), what (module, kind of record, id, action) and, in `details`, each changed field before
 * and after; and, for changes that are webhook events, one delivery per subscribed webhook, queued in the same
 * transaction, and the events handed to doing's workflow triggers (`workflowEvents`) in it too. Entry and delivery
 * ids are derived from the change, so a retried job writes nothing twice.
 */
export function changesJob(deps: MembershipDeps) {
  return handle(changesReported, async ({ records }) => {
    await deps.db.transaction(async (tx) => {
      await insertAudits(
        tx,
        // a change reported only as its event (`logged: false`, a check-in's visits) is no line of the log
        records.flatMap((r, i) => (r.logged === false ? [] : [{
          id: stableUuid(`audit|${r.churchId}|${r.at}|${i}|${r.module}|${r.entityType}|${r.entityId}|${r.action}`),
          churchId: r.churchId,
          userId: r.userId ?? null,
          personId: r.personId ?? null,
          category: CATEGORY.get(r.entityType) ?? r.entityType,
          // The screen shows a deletion's `before` when the action says so.
          action: r.action === 'destroyed' ? 'deleted' : r.action,
          entityType: r.entityType,
          entityId: r.entityId,
          details: detailsOf(r),
          ipAddress: r.ip ?? null,
          module: r.module,
          createdAt: new Date(r.at),
        }])),
      );
      await fanOut(deps, tx, records);
      const events = records.filter((r) => r.event);
      if (events.length) {
        const key = stableUuid(`workflow-events|${events.map((r) => `${r.churchId}|${r.at}|${r.entityId}|${r.event}`).join(',')}`);
        await deps.queue.enqueue(workflowEvents, { records: events }, { tx, jobId: `workflow-events:${key}` });
      }
    });
  });
}
