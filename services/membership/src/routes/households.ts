import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, IdParams, conflict, crud, notFound, reportChanges, type ZodTypeProvider } from '@church/common';
import { households } from '../db/schema';
import { deleteHousehold, existingHouseholdIds, householdSize, listHouseholds } from '../repos/households';
import { Household, HouseholdSave } from '../schemas/households';

const BASE = '/membership/households';

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  crud(app, { path: BASE, table: households, item: Household, save: HouseholdSave, view: anyUser, edit: requires('People.Edit'), only: ['get', 'save'], changes: { entityType: 'household', event: 'household' } });

  // The church's households by name (3,000 in a church of 10,000), kept per data version (households raise it,
  // migration 0017): a repeat is a version lookup and a send (304 with If-None-Match).
  app.get(BASE, { config: { access: anyUser }, schema: { response: { 200: z.array(Household) } } }, (req, reply) =>
    app.deps.snapshots.send(req, reply, req.auth.churchId, 'all', () => listHouseholds(app.db, req.auth.churchId)),
  );

  // Everyone has a household (NOTES.md), so one that still has people is not deleted from under them.
  app.delete(`${BASE}/:id`, { config: { access: requires('People.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const { churchId } = req.auth;
    if (!(await existingHouseholdIds(app.db, churchId, [req.params.id])).size) throw notFound('Household');
    if ((await householdSize(app.db, churchId, req.params.id)) > 0) throw conflict('The household still has people; move them first');
    await app.db.transaction(async (tx) => {
      await deleteHousehold(tx, churchId, req.params.id);
      await reportChanges(app.deps, [{ churchId, entityType: 'household', entityId: req.params.id, action: 'destroyed', event: 'household.destroyed', data: { id: req.params.id } }], { req, tx });
    });
    return {};
  });
}
