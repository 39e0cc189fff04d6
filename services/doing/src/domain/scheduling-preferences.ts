import type { z } from 'zod';
import { hasPermission } from '@church/auth';
import { REMOTE, assertReferences, badRequest, unauthorized, type Actor } from '@church/common';
import type { DoingDeps } from '../deps';
import { savePreferences } from '../repos/scheduling-preferences';
import type { SchedulingPreferenceSave } from '../schemas';
import { changesOf, report } from './changes';
import type { Param } from './plans';

type Deps = Pick<DoingDeps, 'db' | 'internal' | 'queue' | 'module'>;

/**
 * Scheduling preferences saved by person, whatever `id` says: a person has one record, and an editor that loaded
 * none posts a new one. A person sets their own (the caller's person when the item names none), holders of
 * Plans.Edit anyone's; the person is the church's (membership's).
 */
export async function savePreferencesOf(deps: Deps, actor: Actor, input: Array<z.output<typeof SchedulingPreferenceSave>>, param: Param) {
  const mayEditOthers = hasPermission(actor, 'Plans.Edit');
  const rows = input.map((item, i) => {
    const personId = (item.personId ?? actor.personId)?.toLowerCase();
    if (!personId) throw badRequest(param(i, 'personId'), 'personId is required (the caller has no person record)');
    if (personId !== actor.personId?.toLowerCase() && !mayEditOthers) throw unauthorized("Only holders of Plans.Edit can set another person's scheduling preferences");
    return { personId, maxPerMonth: item.maxPerMonth, preferredTimes: item.preferredTimes, householdScheduling: item.householdScheduling };
  });
  await assertReferences(deps, actor.churchId, rows, { personId: REMOTE.people }, param);
  return deps.queue.transaction(deps.db, async (tx) => {
    const { written, stored } = await savePreferences(tx, actor.churchId, rows);
    await report(deps, actor, changesOf('schedulingPreference', written, stored), tx);
    return written;
  });
}
