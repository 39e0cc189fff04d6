import type { z } from 'zod';
import { getRow, reportChanges, saveRows, type Actor, type ChangeInput } from '@church/common';
import { labelTemplates } from '../db/schema';
import type { AttendanceDeps } from '../deps';
import { takeDefault } from '../repos/label-templates';
import type { LabelTemplateSave } from '../schemas';
import { created, updated } from './changes';

export const LABEL_TEMPLATE = 'Label template';

/**
 * Saves label templates (a batch, checked by the route) in one transaction, reported with it, in input order. A
 * template that is (or stays) its type's default takes that from every other template of the type first, under a
 * lock per church and type, so two concurrent "set default" saves end with one default.
 */
export function saveLabelTemplates(deps: Pick<AttendanceDeps, 'db' | 'module' | 'queue'>, actor: Actor, items: Array<z.output<typeof LabelTemplateSave>>) {
  const { churchId } = actor;
  return deps.queue.transaction(deps.db, async (tx) => {
    const saved = [];
    const changes: ChangeInput[] = [];
    for (const item of items) {
      const stored = item.id ? await getRow(tx, labelTemplates, churchId, item.id, LABEL_TEMPLATE) : undefined;
      const labelType = item.labelType ?? stored!.labelType;
      if (item.isDefault ?? stored?.isDefault) {
        for (const was of await takeDefault(tx, churchId, labelType, item.id)) changes.push(updated('labelTemplate', was, { ...was, isDefault: false }));
      }
      const [row] = await saveRows(tx, labelTemplates, churchId, [item], LABEL_TEMPLATE);
      changes.push(stored ? updated('labelTemplate', stored, row!) : created('labelTemplate', row!));
      saved.push(row!);
    }
    await reportChanges(deps, changes, { req: actor, tx });
    return saved;
  });
}
