import type { FastifyInstance } from 'fastify';
import { requires } from '@church/auth';
import type { ZodTypeProvider } from '@church/common';
import { auditPage } from '../repos/audit';
import { AuditPage, AuditQuery } from '../schemas/audit';
import { DAY_MS } from '@church/common';

/**
 * The church's audit log as the settings audit screen reads it: `{logs, count, limit, offset}`, newest first,
 * filtered by category, module, user, the person who acted (`personId`), record (`entityType` + `entityId`) and
 * dates. Every module's changes arrive through `membership.changes` (src/jobs/changes.ts).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/membership/auditlogs',
    {
      config: { access: requires('Settings.Edit') },
      schema: { querystring: AuditQuery, response: { 200: AuditPage } },
    },
    async (req) => {
      const { startDate, endDate, ...q } = req.query;
      // `endDate=2026-11-28` means up to the end of that day.
      const end = endDate && (endDate.dayOnly ? new Date(endDate.at.getTime() + DAY_MS) : endDate.at);
      const { rows, total } = await auditPage(app.db, req.auth.churchId, { ...q, startDate: startDate?.at, endDate: end });
      return {
        logs: rows.map(({ createdAt, ...r }) => ({ ...r, created: createdAt })),
        count: total,
        limit: q.limit,
        offset: q.offset,
      };
    },
  );
}
