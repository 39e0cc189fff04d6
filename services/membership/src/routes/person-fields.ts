import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires, rule, hasPermission } from '@church/auth';
import { Empty, Id, IdParams, actorOf, batchOf, notFound, type ZodTypeProvider } from '@church/common';
import { saveFieldValues, saveFields } from '../domain/person-fields';
import { livePeopleIds } from '../repos/people';
import { deleteField, fieldsOfChurch, valuesOfPeople } from '../repos/person-fields';
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
    saveFields(app.db, req.auth.churchId, req.body),
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
  app.post(values, { config: { access: requires('People.Edit') }, schema: { body: batchOf(ValueSave), response: { 200: z.array(FieldValue) } } }, (req) =>
    saveFieldValues(app.deps, actorOf(req), req.body),
  );
}
