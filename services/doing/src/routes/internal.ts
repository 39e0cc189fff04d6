import type { FastifyInstance } from 'fastify';
import { doingInternal, gdprAnonymize, gdprExport, type ZodTypeProvider } from '@church/common';
import { anonymizePerson, personRecords, planPeople, planTypePlans, taskForReminder } from '../repos/internal';
import { triggerEventTypes } from '../repos/workflows';

/**
 * Server-to-server (signed, access `internal`): what messaging's reminders ask of doing (`doingInternal`) and the
 * GDPR contracts membership calls. Another church's plan type, plan or task answers `null`, never its data.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const internal = { config: { access: 'internal' as const } };
  const { planTypePlans: typePlans, planPeople: people, task, triggerEvents } = doingInternal;

  app.post(typePlans.path, { ...internal, schema: { body: typePlans.body, response: { 200: typePlans.answer } } }, (req) => planTypePlans(app.db, req.body.churchId, req.body.planTypeId, req.body.from, req.body.to));
  app.post(people.path, { ...internal, schema: { body: people.body, response: { 200: people.answer } } }, (req) => planPeople(app.db, req.body.churchId, req.body.planId));
  app.post(task.path, { ...internal, schema: { body: task.body, response: { 200: task.answer } } }, (req) => taskForReminder(app.db, req.body.churchId, req.body.taskId));

  // Membership's answer of what a church listens for adds these: a check-in nobody's trigger hears is handed on to nobody.
  app.post(triggerEvents.path, { ...internal, schema: { body: triggerEvents.body, response: { 200: triggerEvents.answer } } }, async (req) => ({ events: await triggerEventTypes(app.db, req.body.churchId) }));

  // GDPR: a person's serving (assignments, blockout dates, preference), their tasks and cards and the executions about
  // them; anonymizing clears the names and requested changes the tasks carry (see `anonymizePerson`).
  const exportContract = gdprExport('doing');
  app.post(exportContract.path, { ...internal, schema: { body: exportContract.body, response: { 200: exportContract.answer } } }, async (req) => ({ data: await personRecords(app.db, req.body.churchId, req.body.personId) }));
  const anonymizeContract = gdprAnonymize('doing');
  app.post(anonymizeContract.path, { ...internal, schema: { body: anonymizeContract.body, response: { 200: anonymizeContract.answer } } }, async (req) => ({
    changed: await app.db.transaction((tx) => anonymizePerson(tx, req.body.churchId, req.body.personId)),
  }));
}
