import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { hasPermission, requires } from '@church/auth';
import { Empty, Id, IdParams, batchOf, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { assignHousehold, savePeople } from '../../domain/people-save';
import { PersonList, PersonSave, toPerson } from '../../domain/person';
import { removePerson } from '../../repos/people';
import { BASE } from './schemas';

const Assignment = z
  .object({ id: Id.optional(), personId: Id.optional(), householdRole: z.string().trim().max(30).nullish() })
  .superRefine((v, ctx) => {
    if (!v.id && !v.personId) ctx.addIssue({ code: 'custom', path: ['personId'], message: 'personId (or id) is required' });
  })
  .transform((v) => ({ personId: (v.personId ?? v.id)!, householdRole: v.householdRole }));

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // People.Edit saves anyone; People.Edit Self only the caller's own record, and not its privileged fields.
  app.post(BASE, { config: { access: requires('People.Edit or EditSelf') }, schema: { body: batchOf(PersonSave), response: { 200: PersonList } } }, async (req) => {
    const selfOnly = !hasPermission(req.auth, 'People.Edit');
    if (selfOnly && req.body.some((p) => !p.id || !req.auth.personId || p.id.toLowerCase() !== req.auth.personId.toLowerCase())) {
      throw unauthorized('People.Edit Self allows saving only your own person');
    }
    const rows = await savePeople({ db: app.db, storage: app.deps.storage, churchId: req.auth.churchId, selfOnly }, req.body);
    return rows.map(toPerson);
  });

  app.delete(`${BASE}/:id`, { config: { access: requires('People.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    if (!(await removePerson(app.db, req.auth.churchId, req.params.id))) throw notFound('Person');
    return {};
  });

  // The body is the household's new member list: listed people join it, unlisted members move out.
  app.post(
    `${BASE}/household/:householdId`,
    { config: { access: requires('People.Edit') }, schema: { params: z.object({ householdId: Id }), body: batchOf(Assignment), response: { 200: PersonList } } },
    async (req) => (await assignHousehold(app.db, req.auth.churchId, req.params.householdId, req.body)).map(toPerson),
  );
}
