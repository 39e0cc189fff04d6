import type { MessagingDeps } from '../deps';
import { expandReminders, sendReminder } from '../jobs/contracts';
import { claimDue, definitionById, enabledDefinitions, finishOccurrence, occurrenceById, replacePending } from '../repos/reminders';
import { notify } from './notify';
import { currentSubject, deliveryOf, planReminders, reminderText, zoneOf } from './reminders';

/**
 * The reminder scheduler. A definition's reminders of the next two weeks are rows (`reminder_occurrences`),
 * planned from the event, plan or task when it is saved and every hour after; each minute the due ones are claimed
 * and each one's send is enqueued with its id as the job's, in the claiming transaction; the send writes the
 * notifications and marks the row sent in one transaction. So a reminder goes once, whatever the replicas, retries
 * and refreshes.
 */

/** Plans a definition's next reminders again (the occurrences and people are its owner's; `now` for tests). */
export async function expandDefinition(deps: MessagingDeps, churchId: string, definitionId: string, now = new Date()): Promise<number> {
  const def = await definitionById(deps.db, churchId, definitionId);
  if (!def) return 0;
  const planned = await planReminders(deps, def, now);
  await deps.db.transaction((tx) => replacePending(tx, def, planned));
  return planned.length;
}

const CLAIM_BATCH = 200;

/** Claims the reminders due at `now` and enqueues their sends; answers how many were queued. */
export async function scanDue(deps: MessagingDeps, now = new Date()): Promise<number> {
  let queued = 0;
  for (;;) {
    const claimed = await deps.queue.transaction(deps.db, async (tx) => {
      const rows = await claimDue(tx, now, CLAIM_BATCH);
      for (const r of rows) {
        if (r.status !== 'queued') continue;
        await deps.queue.enqueue(sendReminder, { churchId: r.churchId, occurrenceId: r.id }, { tx, jobId: `reminder:${r.id}` });
        queued++;
      }
      return rows.length;
    });
    if (claimed < CLAIM_BATCH) return queued;
  }
}

/** Enqueues the planning of every enabled definition, once per definition and hour. */
export async function refreshAll(deps: MessagingDeps, now = new Date()): Promise<number> {
  const hour = now.toISOString().slice(0, 13);
  let after: string | null = null;
  let count = 0;
  for (;;) {
    const page = await enabledDefinitions(deps.db, after, 500);
    for (const d of page) await deps.queue.enqueue(expandReminders, { churchId: d.churchId, definitionId: d.id }, { jobId: `reminder-expand:${d.id}:${hour}` });
    count += page.length;
    if (page.length < 500) return count;
    after = page[page.length - 1]!.id;
  }
}

/**
 * Sends a queued reminder: checked against its owner first (the event still starts then, the plan is still that
 * day, the task is still open), to the people of that moment, through the notification escalation with the
 * definition's channels. Answers how many people it went to (`null`: cancelled or already done).
 */
export async function sendDue(deps: MessagingDeps, churchId: string, occurrenceId: string): Promise<number | null> {
  const occ = await occurrenceById(deps.db, churchId, occurrenceId);
  if (!occ || occ.status !== 'queued') return null;
  const def = await definitionById(deps.db, churchId, occ.definitionId);
  if (!def || !def.enabled) {
    await finishOccurrence(deps.db, occ.id, 'cancelled');
    return null;
  }
  const tz = await zoneOf(deps, def);
  const current = await currentSubject(deps, def, occ, tz);
  if (!current) {
    await finishOccurrence(deps.db, occ.id, 'cancelled');
    return null;
  }
  const { subject, occurrence, personIds } = current;
  return deps.db.transaction(async (tx) => {
    if (!(await finishOccurrence(tx, occ.id, 'sent', personIds.length))) return null;
    if (personIds.length) {
      await notify(
        deps,
        { churchId, personIds, message: reminderText(def, subject, occurrence, tz), contentType: def.entityType, contentId: occ.entityId, link: subject.link },
        tx,
        deliveryOf(def.channels),
      );
    }
    return personIds.length;
  });
}
