import { z } from 'zod';
import { DELIVERY_RETRIES, cardNote, handle, jobContract, notifyPeople, workflowEvents, type DbOrTx, type Queue } from '@church/common';
import type { DoingDeps } from '../deps';
import { membershipClient } from '../clients/membership';
import { assignmentNotice } from '../repos/assignments';
import { runAutomations } from '../domain/automation-runner';
import { runScheduledTriggers, runWorkflowEvents } from '../domain/workflow-triggers';
import { addCardNote, wakeCards } from '../domain/cards';
import { cardWebhook, deliverCardWebhook } from './card-webhook';

/**
 * Tells a position's team leaders that a volunteer accepted, declined or signed up. Enqueued in the transaction of
 * the answer or the sign-up (it exists only if that commits); a job rather than a call in the request: membership
 * may be away, and it is retried as long as any delivery to a person is (`DELIVERY_RETRIES`).
 */
export const notifyTeamLeaders = jobContract({
  name: 'doing.notifyTeamLeaders',
  schema: z.object({ churchId: z.uuid(), assignmentId: z.uuid(), status: z.enum(['Accepted', 'Declined', 'SignedUp']) }),
  ...DELIVERY_RETRIES,
});

/**
 * Checks every active automation of every church once a day (and on `GET /doing/automations/check`), and runs the
 * workflows' schedule triggers.
 */
export const checkAutomations = jobContract({
  name: 'doing.checkAutomations',
  schema: z.object({ date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(), churchId: z.uuid().optional() }),
  attempts: 3,
  backoffMs: 60_000,
  repeat: { cron: '15 6 * * *' },
});

/** Every 15 minutes: cards whose snooze ended go on (a step's `delay`) or come back to their assignee. */
export const wakeSnoozedCards = jobContract({ name: 'doing.wakeCards', schema: z.object({}), attempts: 3, backoffMs: 60_000, repeat: { cron: '*/15 * * * *' } });

/** How the leaders' notice says what the volunteer did. */
const VERBS = new Map([
  ['Accepted', 'accepted'],
  ['Declined', 'declined'],
  ['SignedUp', 'signed up for'],
] as const);

/**
 * `workflowEvents` and `cardNote` are declared in `@church/common` (membership enqueues the first; membership and
 * messaging the second, to report what a card's step action did); doing owns and runs them.
 */
export const ownedJobs = [notifyTeamLeaders, checkAutomations, workflowEvents, wakeSnoozedCards, cardWebhook, cardNote];

/** Enqueues the leaders' notice of an answer or a sign-up in the change's transaction (one per answer: its id is the row's version). */
export function tellLeaders(queue: Queue, tx: DbOrTx, row: { id: string; churchId: string; updatedAt: Date }, status: 'Accepted' | 'Declined' | 'SignedUp') {
  return queue.enqueue(notifyTeamLeaders, { churchId: row.churchId, assignmentId: row.id, status }, { jobId: `notify-${row.id}-${status}-${row.updatedAt.getTime()}`, tx });
}

export function doingJobs(deps: DoingDeps) {
  return [
    handle(notifyTeamLeaders, async ({ churchId, assignmentId, status }) => {
      const notice = await assignmentNotice(deps.db, churchId, assignmentId);
      if (!notice?.groupId) return;
      const membership = membershipClient(deps.internal);
      const members = await membership.groupMembers(churchId, notice.groupId);
      const leaders = [...new Set(members.filter((m) => m.leader && m.personId !== notice.personId).map((m) => m.personId))];
      if (!leaders.length) return;
      const who = members.find((m) => m.personId === notice.personId)?.displayName ?? (await membership.peopleBasic(churchId, [notice.personId]))[0]?.displayName ?? 'A volunteer';
      const what = [notice.positionName, notice.planName ?? 'a plan', notice.serviceDate ? `on ${notice.serviceDate}` : ''].filter(Boolean).join(' · ');
      await deps.queue.enqueue(
        notifyPeople,
        {
          churchId,
          personIds: leaders,
          message: `${who} ${VERBS.get(status)} ${what}`,
          // As B1Admin's own serving notices: an `assignment` notice opens its plan (B1App reads contentId as the plan).
          contentType: 'assignment',
          contentId: notice.planId,
          triggeredByPersonId: notice.personId,
        },
        { jobId: `doing.assignment.${assignmentId}.${status}.${notice.updatedAt.getTime()}` },
      );
    }),
    handle(checkAutomations, async ({ date, churchId }, ctx) => {
      const result = await runAutomations(deps, { date, churchId });
      const triggered = await runScheduledTriggers(deps, { date, churchId });
      ctx.log.info({ ...result, triggered }, 'automations and schedule triggers checked');
    }),
    handle(wakeSnoozedCards, async (_data, ctx) => {
      const woken = await wakeCards(deps);
      if (woken) ctx.log.info({ woken }, 'snoozed cards woken');
    }),
    handle(cardWebhook, (data) => deliverCardWebhook(deps, data)),
    handle(cardNote, async ({ churchId, cardId, note }) => {
      await addCardNote(deps, churchId, cardId, note);
    }),
    handle(workflowEvents, async ({ records }, ctx) => {
      const result = await runWorkflowEvents(deps, records);
      if (result.started) ctx.log.info(result, 'workflow triggers started cards');
    }),
  ];
}
