import type { z } from 'zod';
import { reportChanges, rowsByIds, saveRows, type Actor, type ChangeInput } from '@church/common';
import { visits } from '../db/schema';
import type { AttendanceDeps } from '../deps';
import { foldVisit, withVisitSessions } from '../repos/visits';
import type { VisitSave } from '../schemas';
import { RECORDED, created, destroyed, updated } from './changes';

/**
 * Saves visits (a batch, checked by the route: required fields, references) in one transaction, reported with it,
 * and answers them with their visit sessions in input order. A new visit records who added it. An update that
 * would duplicate the person's visit at the service that day joins that visit (`foldVisit`): the folded visit is
 * reported destroyed and the one it joined is answered.
 */
export function saveVisits(deps: Pick<AttendanceDeps, 'db' | 'module' | 'queue'>, actor: Actor, items: Array<z.output<typeof VisitSave>>) {
  const { churchId } = actor;
  return deps.queue.transaction(deps.db, async (tx) => {
    const before = new Map((await rowsByIds(tx, visits, churchId, items.flatMap((item) => item.id ?? []))).map((v) => [v.id, v]));
    const saved = [];
    const changes: ChangeInput[] = [];
    for (const item of items) {
      const fold = item.id ? await foldVisit(tx, churchId, { ...item, id: item.id }) : undefined;
      if (fold) {
        saved.push(fold.into);
        changes.push(destroyed('visit', fold.folded));
        continue;
      }
      const [row] = await saveRows(tx, visits, churchId, [{ ...item, addedBy: item.id ? undefined : actor.id }]);
      const was = item.id ? before.get(item.id) : undefined;
      changes.push(was ? updated('visit', was, row!) : created('visit', row!, { event: RECORDED }));
      saved.push(row!);
    }
    await reportChanges(deps, changes, { req: actor, tx });
    return withVisitSessions(tx, churchId, saved);
  });
}
