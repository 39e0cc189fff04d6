import { reportChanges, type Actor, type ChangeInput, type DbOrTx, type ModuleName, type Queue, type ServiceDeps } from '@church/common';

/**
 * Who reports a domain function's changes: the module's deps and the Actor the changes are made for. With
 * `revocations` (the module's deps carry them), a domain function that commits its own transaction announces the
 * token revocations it wrote.
 */
export interface Reporter {
  deps: { module: ModuleName; queue: Queue; revocations?: ServiceDeps['revocations'] };
  actor?: Actor;
}

/** Reports `changes` in `tx` when a reporter is given (the audit log and webhooks; `reportChanges`). */
export function report(reporter: Reporter | undefined, tx: DbOrTx, changes: ChangeInput[]): Promise<void> {
  return reporter && changes.length ? reportChanges(reporter.deps, changes, { req: reporter.actor, tx }) : Promise.resolve();
}
