import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { hasPermission, requires } from '@church/auth';
import { Empty, HttpError, Id, IdParams, badRequest, batchOf, itemParam, notFound, reportChanges, unauthorized, validationFailed, actorOf, type ZodTypeProvider } from '@church/common';
import { bulkChangePeople } from '../../domain/batches';
import { assignHousehold, personChange, personReferenceErrors, savePeople } from '../../domain/people/save';
import { PersonList, PersonSave, toPerson, toPersonValues, type PersonInput } from '../../domain/people/person';
import { livePeopleIds } from '../../repos/people';
import { peopleNow, restorePerson } from '../../repos/batches';
import { BASE } from '../../schemas/people';
import { Assignment, PersonIds, BulkUpdates } from '../../schemas/people/write';

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // People.Edit saves anyone; People.Edit Self only the caller's own record, and not its privileged fields.
  app.post(BASE, { config: { access: requires('People.Edit or EditSelf') }, schema: { body: batchOf(PersonSave), response: { 200: PersonList } } }, async (req) => {
    const selfOnly = !hasPermission(req.auth, 'People.Edit');
    if (selfOnly && req.body.some((p) => !p.id || !req.auth.personId || p.id.toLowerCase() !== req.auth.personId.toLowerCase())) {
      throw unauthorized('People.Edit Self allows saving only your own person');
    }
    const rows = await savePeople(
      { db: app.db, storage: app.deps.storage, churchId: req.auth.churchId, selfOnly, references: app.deps.internal, param: (i, field) => itemParam(req, i, field), report: { deps: app.deps, actor: actorOf(req) } },
      req.body,
    );
    return rows.map(toPerson);
  });

  app.delete(`${BASE}/:id`, { config: { access: requires('People.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const { churchId } = req.auth;
    await app.db.transaction(async (tx) => {
      const [before] = (await peopleNow(tx, churchId, [req.params.id])).filter((p) => !p.removed);
      if (!before) throw notFound('Person');
      const after = await restorePerson(tx, churchId, before.id, { removed: true });
      await reportChanges(app.deps, [personChange(churchId, before, after)], { req, tx });
    });
    return {};
  });

  /** Every id must be a live person of the caller's church: else 404 and nothing changes. */
  const allLive = async (churchId: string, ids: string[]) => {
    const live = await livePeopleIds(app.db, churchId, ids);
    const missing = ids.filter((id) => !live.has(id)).length;
    if (missing) throw new HttpError(404, [{ msg: `${missing} of the people were not found` }]);
  };

  // B1Admin's people list: delete the selected people (soft, as DELETE /:id), in one statement.
  app.post(
    `${BASE}/bulk-delete`,
    {
      config: { access: requires('People.Edit') },
      schema: { body: z.object({ personIds: PersonIds }), response: { 200: z.object({ success: z.boolean(), deletedIds: z.array(z.string()), count: z.number(), batchId: z.string() }) } },
    },
    async (req) => {
      await allLive(req.auth.churchId, req.body.personIds);
      // One batch (settings → batches) that can be reviewed and undone.
      const { ids, batchId } = await bulkChangePeople(app.db, app.deps, actorOf(req), { kind: 'delete' }, req.body.personIds);
      return { success: true, deletedIds: ids, count: ids.length, batchId };
    },
  );

  // B1Admin's bulk edit: one of status, marital status, gender, opt-out, campus, grade or school for the selected
  // people, in one statement (names are untouched, so display names stay).
  app.post(
    `${BASE}/bulk-update`,
    {
      config: { access: requires('People.Edit') },
      schema: {
        body: z.object({ personIds: PersonIds, updates: BulkUpdates }),
        response: { 200: z.object({ success: z.boolean(), updatedIds: z.array(z.string()), count: z.number(), batchId: z.string() }) },
      },
    },
    async (req) => {
      const values = toPersonValues(req.body.updates as PersonInput);
      if (!Object.keys(values).length) throw badRequest('updates', 'updates must name a field to set');
      await allLive(req.auth.churchId, req.body.personIds);
      // The campus set on everyone is a campus of the church (asked of attendance before the batch's transaction).
      const foreign = await personReferenceErrors(app.db, app.deps.internal, req.auth.churchId, [values], (_i, field) => `updates.${field}`);
      if (foreign.length) throw validationFailed(foreign);
      const { ids, batchId } = await bulkChangePeople(app.db, app.deps, actorOf(req), { kind: 'update', values }, req.body.personIds);
      return { success: true, updatedIds: ids, count: ids.length, batchId };
    },
  );

  // The body is the household's new member list: listed people join it, unlisted members move out.
  app.post(
    `${BASE}/household/:householdId`,
    { config: { access: requires('People.Edit') }, schema: { params: z.object({ householdId: Id }), body: batchOf(Assignment), response: { 200: PersonList } } },
    async (req) => (await assignHousehold(app.db, req.auth.churchId, req.params.householdId, req.body)).map(toPerson),
  );
}
