import { cardNote, handle, notifyPeople, systemActor, workflowEvents, type JobContext } from '@church/common';
import type { DoingDeps } from '../deps';
import { membershipClient } from '../clients/membership';
import { assignmentNotice } from '../repos/assignments';
import { runAutomations } from '../domain/automation-runner';
import { runScheduledTriggers, runWorkflowEvents } from '../domain/workflow-triggers';
import { addCardNote, wakeCards, type JobRun } from '../domain/cards';
import { deliverCardWebhook } from '../domain/card-webhook';
import { cardWebhook, checkAutomations, notifyTeamLeaders, wakeSnoozedCards } from './contracts';

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

/** A job's run as domain code sees it: the work acts as the module itself (`systemActor`) under the job's id and log. */
const runOf = (name: string, ctx: JobContext): JobRun => ({ id: ctx.jobId ?? name, log: ctx.log });

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
      const triggered = await runScheduledTriggers(deps, { date, churchId }, runOf(checkAutomations.name, ctx));
      ctx.log.info({ ...result, triggered }, 'automations and schedule triggers checked');
    }),
    handle(wakeSnoozedCards, async (_data, ctx) => {
      const woken = await wakeCards(deps, runOf(wakeSnoozedCards.name, ctx));
      if (woken) ctx.log.info({ woken }, 'snoozed cards woken');
    }),
    handle(cardWebhook, (data) => deliverCardWebhook(deps, data)),
    handle(cardNote, async ({ churchId, cardId, note }, ctx) => {
      await addCardNote(deps, systemActor(churchId, ctx.jobId ?? cardNote.name, ctx.log), cardId, note);
    }),
    handle(workflowEvents, async ({ records }, ctx) => {
      const result = await runWorkflowEvents(deps, records, runOf(workflowEvents.name, ctx));
      if (result.started) ctx.log.info(result, 'workflow triggers started cards');
    }),
  ];
}
