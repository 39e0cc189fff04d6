import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission } from '@church/auth';
import { actorOf, REMOTE, badRequest, batchOf, checkReferences, itemParam, unauthorized, type ZodTypeProvider } from '@church/common';
import { preferencesOf, savePreferences } from '../repos/scheduling-preferences';
import { changesOf, report } from '../domain/changes';
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
  app.post(base, { ...read, schema: { body: batchOf(SchedulingPreferenceSave), response: { 200: List } } }, async (req) => {
    const mayEditOthers = hasPermission(req.auth, 'Plans.Edit');
    const rows = req.body.map((item, i) => {
      const personId = (item.personId ?? req.auth.personId)?.toLowerCase();
      if (!personId) throw badRequest(itemParam(req, i, 'personId'), 'personId is required (the caller has no person record)');
      if (personId !== req.auth.personId?.toLowerCase() && !mayEditOthers) throw unauthorized("Only holders of Plans.Edit can set another person's scheduling preferences");
      return { personId, maxPerMonth: item.maxPerMonth, preferredTimes: item.preferredTimes, householdScheduling: item.householdScheduling };
    });
    // the person is the church's (membership's)
    await checkReferences(req, rows, { personId: REMOTE.people });
    return app.deps.queue.transaction(app.db, async (tx) => {
      const { written, stored } = await savePreferences(tx, req.auth.churchId, rows);
      await report(app.deps, actorOf(req), changesOf('schedulingPreference', written, stored), tx);
      return written;
    });
  });
}
