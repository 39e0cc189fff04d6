import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id } from '@church/common';

/**
 * What was done in a church and by whom (`GET /membership/auditlogs`, the settings audit screen): append-only.
 * `details` is JSON text; `module` names the module the change happened in. Every module's changes arrive through
 * `membership.changes` (`reportChanges` of @church/common); membership's own impersonation entries are written here.
 */
export const auditLogs = pgTable(
  'audit_logs',
  {
    id: id(),
    churchId: churchId(),
    userId: uuid('user_id'),
    /** the person of the user who made the change, in this church (the screen's filter by person) */
    personId: uuid('person_id'),
    category: text('category').notNull(),
    action: text('action').notNull(),
    entityType: text('entity_type'),
    entityId: text('entity_id'),
    details: text('details'),
    ipAddress: text('ip_address'),
    module: text('module').notNull().default('membership'),
    /** the bulk change (`batches`) this entry belongs to */
    batchId: uuid('batch_id'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('audit_logs_church_created_idx').on(t.churchId, t.createdAt),
    index('audit_logs_church_entity_idx').on(t.churchId, t.entityType, t.entityId),
    index('audit_logs_church_person_idx').on(t.churchId, t.personId, t.createdAt),
    index('audit_logs_church_user_idx').on(t.churchId, t.userId, t.createdAt),
  ],
);
