import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { batchOf, checkBatch, crud, getRow, reportChanges, saveRows, type ChangeInput, type ZodTypeProvider } from '@church/common';
import { labelTemplates } from '../db/schema';
import { created, updated } from '../domain/changes';
import { takeDefault } from '../repos/label-templates';
import { LabelTemplate, LabelTemplateSave } from '../schemas';

const PATH = '/attendance/labeltemplates';
const NAME = 'Label template';
// Kiosks read the templates they print with the check-in right; the staff app's label screen (shown to holders of
// Attendance.Edit) reads and edits them.
const view = requires('Attendance.View or Attendance.Edit or Attendance.Checkin');
const edit = requires('Attendance.Edit');

/** `/attendance/labeltemplates`: the church's check-in label templates; at most one default per label type. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  crud(app, { path: PATH, name: NAME, table: labelTemplates, item: LabelTemplate, save: LabelTemplateSave, view, edit, only: ['list', 'get', 'delete'], orderBy: [labelTemplates.name, labelTemplates.id], changes: { entityType: 'labelTemplate' } });

  // The batch save. A template that is (or stays) its type's default takes that from every other template of the
  // type first, under a lock per church and type, so two concurrent "set default" saves end with one default.
  app.post(PATH, { config: { access: edit }, schema: { body: batchOf(LabelTemplateSave), response: { 200: z.array(LabelTemplate) } } }, (req) =>
    app.deps.queue.transaction(app.db, async (tx) => {
      const churchId = req.auth.churchId;
      await checkBatch(tx, req, req.body, { requiredOnCreate: ['name', 'labelType', 'width', 'height'] });
      const saved = [];
      const changes: ChangeInput[] = [];
      for (const item of req.body) {
        const stored = item.id ? await getRow(tx, labelTemplates, churchId, item.id, NAME) : undefined;
        const labelType = item.labelType ?? stored!.labelType;
        if (item.isDefault ?? stored?.isDefault) {
          for (const was of await takeDefault(tx, churchId, labelType, item.id)) changes.push(updated('labelTemplate', was, { ...was, isDefault: false }));
        }
        const [row] = await saveRows(tx, labelTemplates, churchId, [item], NAME);
        changes.push(stored ? updated('labelTemplate', stored, row!) : created('labelTemplate', row!));
        saved.push(row!);
      }
      await reportChanges(app.deps, changes, { req, tx });
      return saved;
    }),
  );
}
