import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Id, IsoDate, type ZodTypeProvider } from '@church/common';
import { auditPage } from '../repos/audit';

const DAY_MS = 24 * 3600 * 1000;
const Text = z.string().trim().max(100).optional();
/** A day (`2026-11-28`, the screen's date inputs) or an instant; `''` is none. */
const DateOrDay = z
  .string()
  .trim()
  .max(40)
  .optional()
  .transform((text, ctx) => {
    if (!text) return undefined;
    const at = IsoDate.safeParse(text);
    if (!at.success) {
      ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date' });
      return z.NEVER;
    }
    return { at: at.data, dayOnly: /^\d{4}-\d{2}-\d{2}$/.test(text) };
  });

const AuditLog = z.object({
  id: z.string(),
  churchId: z.string(),
  userId: z.string().nullable(),
  category: z.string(),
  action: z.string(),
  entityType: z.string().nullable(),
  entityId: z.string().nullable(),
  details: z.string().nullable(),
  ipAddress: z.string().nullable(),
  module: z.string(),
  batchId: z.string().nullable(),
  created: z.date(),
});

/**
 * The church's audit log as the settings audit screen reads it: `{logs, count, limit, offset}`, newest first,
 * filtered by category, module, user, record (`entityType` + `entityId`) and dates. Only what membership records
 * today is in it (server admins' impersonation); the full audit log is a later issue, so a church without such
 * entries gets an empty page, never made-up rows.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/membership/auditlogs',
    {
      config: { access: requires('Settings.Edit') },
      schema: {
        querystring: z.object({
          category: Text,
          module: Text,
          userId: Id.optional(),
          entityType: Text,
          entityId: Text,
          startDate: DateOrDay,
          endDate: DateOrDay,
          limit: z.coerce.number().int().min(1).max(500).default(100),
          offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
        }),
        response: { 200: z.object({ logs: z.array(AuditLog), count: z.number(), limit: z.number(), offset: z.number() }) },
      },
    },
    async (req) => {
      const { startDate, endDate, ...q } = req.query;
      // `endDate=2026-11-28` means up to the end of that day.
      const end = endDate && (endDate.dayOnly ? new Date(endDate.at.getTime() + DAY_MS) : endDate.at);
      const { rows, total } = await auditPage(app.db, req.auth.churchId, { ...q, startDate: startDate?.at, endDate: end });
      return {
        logs: rows.map(({ createdAt, ...r }) => ({ ...r, batchId: null, created: createdAt })),
        count: total,
        limit: q.limit,
        offset: q.offset,
      };
    },
  );
}
