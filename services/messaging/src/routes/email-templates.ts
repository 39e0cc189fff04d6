import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { hasPermission, requires, type Claims } from '@church/auth';
import { Id, IdParams, crud, deleteRow, notFound, reportChanges, unauthorized, type ZodTypeProvider } from '@church/common';
import { depsOf } from '../deps';
import { contacts } from '../clients/membership';
import { sendGroupEmail } from '../domain/group-email';
import { emailTemplates } from '../db/schema';
import { ChurchIdParams, Empty } from '../schemas/common';
import { EmailPreview, EmailTemplate, GroupEmailResult, SaveTemplate, SendEmail } from '../schemas/email-templates';

/**
 * Where email templates are served: the spec's `/messaging/emailTemplates`, and `/messaging/messaging/emailTemplates`,
 * the path B1Admin's calls reach (the open-source server's controller path inside the messaging module). Both are
 * the same routes on the same rows.
 */
export const TEMPLATE_PATHS = ['/messaging/emailTemplates', '/messaging/messaging/emailTemplates'] as const;

/** Staff who write to groups, and group leaders (to their own groups). */
const writers = requires('People.Edit or Groups.Edit or Group Leader');

function assertMayWriteTo(auth: Claims, groupId: string) {
  if (hasPermission(auth, 'People.Edit') || hasPermission(auth, 'Groups.Edit') || auth.leaderGroupIds.includes(groupId)) return;
  throw unauthorized('Missing permission: People.Edit, Groups.Edit or leader of this group');
}

/** What the routes under the apps' path are, in the API document (the spec describes them under its own). */
const SUMMARIES: Record<string, string> = {
  'GET ': 'All email templates of the church',
  'GET /:id': 'One email template',
  'GET /preview/:groupId': 'Who of a group an email would reach',
  'POST ': 'Save email templates (batch)',
  'POST /send': 'Email every member of a group',
  'DELETE /:id': 'Delete an email template',
  'DELETE /:churchId/:id': 'Delete an email template by church and id',
};

/** Email templates (a standard table, its saves and deletes reported to the audit log) and group email. */
export default async function routes(root: FastifyInstance): Promise<void> {
  for (const base of TEMPLATE_PATHS) {
    await root.register(async (scope) => {
      scope.addHook('onRoute', (route) => {
        const suffix = route.url.slice(base.length);
        const summary = Object.hasOwn(SUMMARIES, `${route.method} ${suffix}`) ? SUMMARIES[`${route.method} ${suffix}`] : undefined;
        route.schema = { ...route.schema, tags: ['Email templates'], ...(summary && base !== TEMPLATE_PATHS[0] ? { summary } : {}) };
      });
      templateRoutes(scope, base);
    });
  }
}

function templateRoutes(root: FastifyInstance, base: string): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = depsOf(app);
  const remove = (req: FastifyRequest, id: string) =>
    app.db.transaction(async (tx) => {
      const gone = await deleteRow(tx, emailTemplates, req.auth.churchId, id, 'Email template');
      await reportChanges(app.deps, [{ churchId: req.auth.churchId, entityType: 'emailTemplate', entityId: gone.id, action: 'destroyed', before: gone }], { req, tx });
    });

  app.get(`${base}/preview/:groupId`, { config: { access: writers }, schema: { params: z.object({ groupId: Id }), response: { 200: EmailPreview } } }, async (req) => {
    assertMayWriteTo(req.auth, req.params.groupId);
    const members = await contacts(deps, req.auth.churchId, { groupId: req.params.groupId });
    const withEmail = members.filter((m) => m.email);
    return {
      totalMembers: members.length,
      eligibleCount: withEmail.length,
      noEmailCount: members.length - withEmail.length,
      recipients: withEmail.map((m) => ({ personId: m.id, displayName: m.displayName, email: m.email })),
      noEmail: members.filter((m) => !m.email).map((m) => ({ personId: m.id, displayName: m.displayName })),
    };
  });

  app.post(`${base}/send`, { config: { access: writers }, schema: { body: SendEmail, response: { 200: GroupEmailResult } } }, async (req) => {
    assertMayWriteTo(req.auth, req.body.groupId);
    return sendGroupEmail(deps, req.auth.churchId, req.body);
  });

  // The standard list, read and save; deletes below (crud's delete declares no answer yet).
  crud(app, {
    only: ['list', 'get', 'save'],
    path: base,
    name: 'Email template',
    table: emailTemplates,
    item: EmailTemplate,
    save: SaveTemplate,
    view: writers,
    edit: writers,
    orderBy: emailTemplates.name,
    toRow: (input) => ({ ...input, ...(input.id ? { dateModified: new Date() } : {}) }),
    changes: { entityType: 'emailTemplate' },
  });

  // The spec's delete, and B1Admin's templates page's (by church and id).
  app.delete(`${base}/:id`, { config: { access: writers }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await remove(req, req.params.id);
    return {};
  });
  app.delete(`${base}/:churchId/:id`, { config: { access: writers }, schema: { summary: SUMMARIES['DELETE /:churchId/:id'], params: ChurchIdParams, response: { 200: Empty } } }, async (req) => {
    if (req.params.churchId !== req.auth.churchId) throw notFound('Email template');
    await remove(req, req.params.id);
    return {};
  });
}
