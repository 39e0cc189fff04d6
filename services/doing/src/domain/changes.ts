import { reportChanges, type Actor, type ChangeInput, type DbOrTx, type ModuleName, type Queue } from '@church/common';

// Change records of doing's hand-written writes, for `reportChanges` (the church's audit log) in the write's
// transaction. `crud()` reports its own saves and deletes (its `changes` option).

type Row = { id: string; churchId: string; [field: string]: unknown };
/** What kind of record changed, singular, as the audit log names it. */
export type Kind =
  | 'plan'
  | 'assignment'
  | 'planItem'
  | 'planItemTime'
  | 'planTemplate'
  | 'schedulingPreference'
  | 'task'
  | 'automation'
  | 'workflow'
  | 'workflowStep'
  | 'workflowTrigger'
  | 'contentProviderAuth';

/** A row before and after a write (either may be absent: a creation, a deletion) as a change record. */
export function change(entityType: Kind, before: Row | undefined, after: Row | undefined, action?: string): ChangeInput {
  const row = (after ?? before)!;
  return {
    churchId: row.churchId,
    entityType,
    entityId: row.id,
    action: action ?? (!before ? 'created' : !after ? 'destroyed' : 'updated'),
    ...(before ? { before } : {}),
    ...(after ? { after } : {}),
  };
}

/** Pairs of written rows with what was stored before them (by id), as change records. */
export function changesOf(entityType: Kind, written: Row[], stored: Row[]): ChangeInput[] {
  const was = new Map(stored.map((r) => [r.id, r]));
  return written.map((after) => change(entityType, was.get(after.id), after));
}

/** Reports changes made by `actor` in the write's transaction (`tx`), or at once when the write had none. */
export function report(deps: { module: ModuleName; queue: Queue }, actor: Actor | undefined, changes: ChangeInput[], tx?: DbOrTx): Promise<void> {
  return changes.length ? reportChanges(deps, changes, { req: actor, tx }) : Promise.resolve();
}
