import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, hasPermission } from '@church/auth';
import { badRequest, batchOf, itemParam, unauthorized, type ZodTypeProvider } from '@church/common';
import { schedulingPreferences } from '../db/schema';
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

  app.get(`${base}/people`, { ...read, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: List } } }, async (req) =>
    req.query.ids.length
      ? app.db
          .select()
          .from(schedulingPreferences)
          .where(and(eq(schedulingPreferences.churchId, req.auth.churchId), inArray(schedulingPreferences.personId, req.query.ids)))
          .orderBy(asc(schedulingPreferences.personId))
      : [],
  );

  // Saved by person, whatever `id` says: a person has one record, and an editor that loaded none posts a new one.
  app.post(base, { ...read, schema: { body: batchOf(SchedulingPreferenceSave), response: { 200: List } } }, (req) => {
    const mayEditOthers = hasPermission(req.auth, 'Plans.Edit');
    const rows = req.body.map((item, i) => {
      const personId = (item.personId ?? req.auth.personId)?.toLowerCase();
      if (!personId) throw badRequest(itemParam(req, i, 'personId'), 'personId is required (the caller has no person record)');
      if (personId !== req.auth.personId?.toLowerCase() && !mayEditOthers) throw unauthorized("Only holders of Plans.Edit can set another person's scheduling preferences");
      return { personId, maxPerMonth: item.maxPerMonth, preferredTimes: item.preferredTimes, householdScheduling: item.householdScheduling };
    });
    return app.db.transaction(async (tx) => {
      const saved = [];
      for (const row of rows) {
        const set = Object.fromEntries(Object.entries(row).filter(([k, v]) => k !== 'personId' && v !== undefined));
        const [done] = await tx
          .insert(schedulingPreferences)
          .values({ id: randomUUID(), churchId: req.auth.churchId, ...row })
          .onConflictDoUpdate({ target: [schedulingPreferences.churchId, schedulingPreferences.personId], set: { ...set, updatedAt: sql`now()` } })
          .returning();
        saved.push(done!);
      }
      return saved;
    });
  });
}
