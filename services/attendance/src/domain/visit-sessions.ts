import type { z } from 'zod';
import { getRow, reportChanges, utcMidnight, type Actor, type ChangeInput } from '@church/common';
import { sessions } from '../db/schema';
import type { AttendanceDeps } from '../deps';
import { serviceOfSession } from '../repos/sessions';
import { findOrCreateVisit, linkVisitSession } from '../repos/visits';
import type { LogBody } from '../schemas';
import { assertInScope, groupScope } from './access';
import { RECORDED, created } from './changes';

/**
 * Logs a person into sessions, in one transaction: each session must be the church's (404) and, for a leader
 * without Attendance.Edit, of a group they lead (401). The person's visit at the session's service on its day is
 * found or created, and linked to the session once.
 */
export async function logVisitSessions(deps: Pick<AttendanceDeps, 'db' | 'module' | 'queue'>, actor: Actor, body: z.output<typeof LogBody>): Promise<void> {
  const { churchId } = actor;
  const scope = groupScope(actor, 'Attendance.Edit');
  await deps.queue.transaction(deps.db, async (tx) => {
    const changes: ChangeInput[] = [];
    for (const { sessionId } of body.visitSessions) {
      const session = await getRow(tx, sessions, churchId, sessionId, 'Session');
      assertInScope(scope, session.groupId);
      const serviceId = await serviceOfSession(tx, churchId, session);
      const { visit, created: isNew } = await findOrCreateVisit(tx, churchId, body.personId, serviceId, utcMidnight(session.sessionDate), actor.id);
      if (isNew) changes.push(created('visit', visit));
      const link = await linkVisitSession(tx, churchId, visit.id, session.id);
      // a person logged into a session: their attendance recorded (the visit with the new visit session and its
      // session, as a check-in's visit carries them: a workflow trigger filters on the group)
      if (link) changes.push(created('visitSession', link, { event: RECORDED, data: { ...visit, visitSessions: [{ ...link, session: { id: session.id, groupId: session.groupId, serviceTimeId: session.serviceTimeId, sessionDate: session.sessionDate } }] } }));
    }
    await reportChanges(deps, changes, { req: actor, tx });
  });
}
