import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires, rule, hasPermission } from '@church/auth';
import { Empty, Id, IdParams, badRequest, batchOf, notFound, reportChanges, saveRows, type ZodTypeProvider } from '@church/common';
import { personFields } from '../db/schema';
import { livePeopleIds } from '../repos/people';
import { deleteField, fieldIdsOf, fieldsOfChurch, nextFieldSort, setValue, valuesOfPeople } from '../repos/person-fields';
import { PersonField, FieldSave, FieldValue, ValueSave } from '../schemas/person-fields';


/** Reading values: People.View (or People.Edit), or the caller's own record. */
const viewerOrSelf = rule('People.View or People.Edit, or own record', (req, auth) => {
  const personId = (req.params as { personId?: string }).personId;
  return hasPermission(auth, 'People.View') || hasPermission(auth, 'People.Edit') || (!!personId && personId.toLowerCase() === auth.personId?.toLowerCase());
});

/**
 * The church's custom fields on person records (`/membership/personfields`, B1Admin's settings and person pages)
 * and people's values of them (`/membership/personfieldvalues`).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const fields = '/membership/personfields';
  const values = '/membership/personfieldvalues';

  app.get(fields, { config: { access: requires('People.View or People.Edit') }, schema: { response: { 200: z.array(PersonField) } } }, (req) =>
    fieldsOfChurch(app.db, req.auth.churchId),
  );

  // A new field goes after the church's last one (Textbox unless told); `choices` only for Multiple Choice (a field
  // saved as another type loses them).
  app.post(fields, { config: { access: requires('People.Edit') }, schema: { body: batchOf(FieldSave), response: { 200: z.array(PersonField) } } }, (req) =>
    app.db.transaction(async (tx) => {
      const out = [];
      for (const [i, item] of req.body.entries()) {
        const at = req.body.length > 1 ? `[${i}].` : '';
        if (item.fieldType === 'Multiple Choice' && !item.choices) throw badRequest(`${at}choices`, 'a Multiple Choice field needs its choices');
        const row = { ...item, ...(item.fieldType && item.fieldType !== 'Multiple Choice' ? { choices: null } : {}) };
        if (!item.id && row.sort === undefined) row.sort = await nextFieldSort(tx, req.auth.churchId);
        const [saved] = await saveRows(tx, personFields, req.auth.churchId, [row], 'Person field');
        out.push(saved!);
      }
      return out;
    }),
  );

  app.delete(`${fields}/:id`, { config: { access: requires('People.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const done = await app.db.transaction((tx) => deleteField(tx, req.auth.churchId, req.params.id));
    if (!done) throw notFound('Person field');
    return {};
  });

  app.get(
    `${values}/person/:personId`,
    { config: { access: viewerOrSelf }, schema: { params: z.object({ personId: Id }), response: { 200: z.array(FieldValue) } } },
    async (req) => {
      if (!(await livePeopleIds(app.db, req.auth.churchId, [req.params.personId])).size) throw notFound('Person');
      return valuesOfPeople(app.db, req.auth.churchId, [req.params.personId]);
    },
  );

  // B1Admin's person editor posts every field of the person (`""` for an empty one, which removes the value) and
  // its merge screen the moved values. One transaction; answers the current values of the people sent.
  app.post(values, { config: { access: requires('People.Edit') }, schema: { body: batchOf(ValueSave), response: { 200: z.array(FieldValue) } } }, async (req) => {
    const { churchId } = req.auth;
    const personIds = [...new Set(req.body.map((v) => v.personId.toLowerCase()))];
    const fieldIds = [...new Set(req.body.map((v) => v.fieldId.toLowerCase()))];
    const [people, known] = await Promise.all([livePeopleIds(app.db, churchId, personIds), fieldIdsOf(app.db, churchId, fieldIds)]);
    if (personIds.some((id) => !people.has(id))) throw notFound('Person');
    if (fieldIds.some((id) => !known.has(id))) throw notFound('Person field');
    return app.db.transaction(async (tx) => {
      for (const v of req.body) {
        const text = v.value === null || v.value === undefined ? '' : String(v.value);
        if (text.length > 4000) throw badRequest('value', 'value must be at most 4000 characters');
        await setValue(tx, churchId, v.personId.toLowerCase(), v.fieldId.toLowerCase(), text);
      }
      await reportChanges(
        app.deps,
        req.body.map((v) => ({ churchId, entityType: 'personFieldValue', entityId: v.personId.toLowerCase(), action: 'saved', after: { fieldId: v.fieldId.toLowerCase(), value: v.value ?? null } })),
        { req, tx },
      );
      return valuesOfPeople(tx, churchId, personIds);
    });
  });
}
