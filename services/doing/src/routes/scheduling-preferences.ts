import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { actorOf, batchOf, itemParam, type ZodTypeProvider } from '@church/common';
import { preferencesOf } from '../repos/scheduling-preferences';
import { savePreferencesOf } from '../domain/scheduling-preferences';
import { IdsQuery, SchedulingPreference, SchedulingPreferenceSave } from '../schemas';

const base = '/doing/schedulingPreferences';
const List = z.array(SchedulingPreference);

/**
 * `/doing/schedulingPreferences`: how a volunteer likes to be scheduled (B1Admin's SchedulingPreferenceEdit and
 * PlanValidation); autofill honours `maxPerMonth`. One record per person. Anyone signed in reads them (the plan
 * screens check a team against them); a person sets their own, and holders of Plans.Edit anyone's.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };

  app.get(`${base}/people`, { ...read, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: List } } }, (req) => preferencesOf(app.db, req.auth.churchId, req.query.ids));

  // Saved by person, whatever `id` says: a person has one record, and an editor that loaded none posts a new one.
  app.post(base, { ...read, schema: { body: batchOf(SchedulingPreferenceSave), response: { 200: List } } }, (req) =>
    savePreferencesOf(app.deps, actorOf(req), req.body, (i, f) => itemParam(req, i, f)),
  );
}
