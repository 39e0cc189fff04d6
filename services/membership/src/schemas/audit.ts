import { z } from 'zod';
import { Id, IsoDate } from '@church/common';

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

export const AuditLog = z.object({
  id: z.string(),
  churchId: z.string(),
  userId: z.string().nullable(),
  personId: z.string().nullable(),
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

/** The audit screen's filters and page. */
export const AuditQuery = z.object({
  category: Text,
  module: Text,
  userId: Id.optional(),
  /** the person who made the changes (in the church) */
  personId: Id.optional(),
  entityType: Text,
  entityId: Text,
  startDate: DateOrDay,
  endDate: DateOrDay,
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const AuditPage = z.object({ logs: z.array(AuditLog), count: z.number(), limit: z.number(), offset: z.number() });
