import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id } from '@church/common';

/**
 * What was done in a church and by whom (`GET /membership/auditlogs`, the settings audit screen): append-only.
 * `details` is JSON text; `module` names the module the action happened in. Membership writes the entries it is
 * asked to keep today (impersonation); the full audit log is a later issue.
 */
export const auditLogs = pgTable(
  'audit_logs',
  {
    id: id(),
    churchId: churchId(),
    userId: uuid('user_id'),
    category: text('category').notNull(),
    action: text('action').notNull(),
    entityType: text('entity_type'),
    entityId: text('entity_id'),
    details: text('details'),
    ipAddress: text('ip_address'),
    module: text('module').notNull().default('membership'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [index('audit_logs_church_created_idx').on(t.churchId, t.createdAt), index('audit_logs_church_entity_idx').on(t.churchId, t.entityType, t.entityId)],
);
