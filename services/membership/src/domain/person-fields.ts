import type { z } from 'zod';
import { badRequest, notFound, reportChanges, saveRows, type Actor, type Db } from '@church/common';
import type { MembershipDeps } from '../deps';
import { personFields } from '../db/schema';
import { livePeopleIds } from '../repos/people';
import { fieldIdsOf, nextFieldSort, setValue, valuesOfPeople } from '../repos/person-fields';
import type { FieldSave, ValueSave } from '../schemas/person-fields';

/**
 * Saves the church's custom fields in one transaction: a new field goes after the church's last one (Textbox unless
 * told); `choices` only for Multiple Choice (a field saved as another type loses them).
 */
export function saveFields(db: Db, churchId: string, items: Array<z.output<typeof FieldSave>>) {
  return db.transaction(async (tx) => {
    const out = [];
    for (const [i, item] of items.entries()) {
      const at = items.length > 1 ? `[${i}].` : '';
      if (item.fieldType === 'Multiple Choice' && !item.choices) throw badRequest(`${at}choices`, 'a Multiple Choice field needs its choices');
      const row = { ...item, ...(item.fieldType && item.fieldType !== 'Multiple Choice' ? { choices: null } : {}) };
      if (!item.id && row.sort === undefined) row.sort = await nextFieldSort(tx, churchId);
      const [saved] = await saveRows(tx, personFields, churchId, [row], 'Person field');
      out.push(saved!);
    }
    return out;
  });
}

/**
 * Saves people's values of the church's fields in one transaction (`""` or none removes a value: B1Admin's person
 * editor posts every field of the person, its merge screen the moved values); answers the current values of the
 * people sent. Every person and field must be the church's (404).
 */
export async function saveFieldValues(deps: Pick<MembershipDeps, 'db' | 'module' | 'queue'>, actor: Actor, items: Array<z.output<typeof ValueSave>>) {
  const { churchId } = actor;
  const personIds = [...new Set(items.map((v) => v.personId.toLowerCase()))];
  const fieldIds = [...new Set(items.map((v) => v.fieldId.toLowerCase()))];
  const [people, known] = await Promise.all([livePeopleIds(deps.db, churchId, personIds), fieldIdsOf(deps.db, churchId, fieldIds)]);
  if (personIds.some((id) => !people.has(id))) throw notFound('Person');
  if (fieldIds.some((id) => !known.has(id))) throw notFound('Person field');
  return deps.db.transaction(async (tx) => {
    for (const v of items) {
      const text = v.value === null || v.value === undefined ? '' : String(v.value);
      if (text.length > 4000) throw badRequest('value', 'value must be at most 4000 characters');
      await setValue(tx, churchId, v.personId.toLowerCase(), v.fieldId.toLowerCase(), text);
    }
    await reportChanges(
      deps,
      items.map((v) => ({ churchId, entityType: 'personFieldValue', entityId: v.personId.toLowerCase(), action: 'saved', after: { fieldId: v.fieldId.toLowerCase(), value: v.value ?? null } })),
      { req: actor, tx },
    );
    return valuesOfPeople(tx, churchId, personIds);
  });
}
