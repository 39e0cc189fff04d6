import { REMOTE, assertReferences, type Actor } from '@church/common';
import type { DoingDeps } from '../deps';
import { assignments } from '../db/schema';
import { tellLeaders } from '../jobs/contracts';
import { saveAssignments, type AssignmentInput, type AssignmentRow } from '../repos/assignments';
import { ministryScope, outsideMinistry, refuseOutside } from '../repos/refs';
import { changesOf, report } from './changes';
import type { Param } from './plans';

type Deps = Pick<DoingDeps, 'db' | 'internal' | 'queue' | 'module'>;

/**
 * A coordinator's batch of assignments (`ministries`: the ministries the caller may edit, `undefined` for every one).
 * The people assigned are the church's (membership's); positions are checked with the save; the assignments changed
 * must be of the caller's ministries before and after it. An answer given with the save (the caller's own) tells the
 * team's leaders, in the save's transaction.
 */
export async function saveAssignmentsOf(deps: Deps, actor: Actor, ministries: Set<string> | undefined, input: AssignmentInput[], param: Param): Promise<AssignmentRow[]> {
  await assertReferences(deps, actor.churchId, input, { personId: REMOTE.people }, param);
  return deps.queue.transaction(deps.db, async (tx) => {
    const churchId = actor.churchId;
    const narrowed = ministryScope(ministries, assignments.planId, 'plan', churchId);
    await refuseOutside(tx, assignments, churchId, input.flatMap((a) => (a.id ? [a.id.toLowerCase()] : [])), narrowed, outsideMinistry);
    const { written, stored, answers } = await saveAssignments(tx, churchId, actor.personId, input, param);
    await refuseOutside(tx, assignments, churchId, written.map((r) => r.id), narrowed, outsideMinistry);
    for (const answer of answers) await tellLeaders(deps.queue, tx, answer.row, answer.status);
    await report(deps, actor, changesOf('assignment', written, stored), tx);
    return written;
  });
}
