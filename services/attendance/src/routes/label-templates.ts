import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { actorOf, batchOf, checkBatch, crud, type ZodTypeProvider } from '@church/common';
import { labelTemplates } from '../db/schema';
import { LABEL_TEMPLATE, saveLabelTemplates } from '../domain/label-templates';
import { LabelTemplate, LabelTemplateSave } from '../schemas';

const PATH = '/attendance/labeltemplates';
// Kiosks read the templates they print with the check-in right; the staff app's label screen (shown to holders of
// Attendance.Edit) reads and edits them.
const view = requires('Attendance.View or Attendance.Edit or Attendance.Checkin');
const edit = requires('Attendance.Edit');

/** `/attendance/labeltemplates`: the church's check-in label templates; at most one default per label type. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  crud(app, { path: PATH, name: LABEL_TEMPLATE, table: labelTemplates, item: LabelTemplate, save: LabelTemplateSave, view, edit, only: ['list', 'get', 'delete'], orderBy: [labelTemplates.name, labelTemplates.id], changes: { entityType: 'labelTemplate' } });

  // The batch save (`saveLabelTemplates`: one default per label type).
  app.post(PATH, { config: { access: edit }, schema: { body: batchOf(LabelTemplateSave), response: { 200: z.array(LabelTemplate) } } }, async (req) => {
    await checkBatch(app.db, req, req.body, { requiredOnCreate: ['name', 'labelType', 'width', 'height'] });
    return saveLabelTemplates(app.deps, actorOf(req), req.body);
  });
}
