import type { ChangeInput } from '@church/common';

// Change records of attendance's hand-written writes, for `reportChanges` (the audit log and webhooks) in the
// write's transaction. `crud()` reports its own saves and deletes.

type Row = { id: string; churchId: string; [field: string]: unknown };
type Kind = 'visit' | 'visitSession' | 'session' | 'labelTemplate';

/** The webhook event of a recorded attendance: a visit created, checked in, or a person logged into a session. */
export const RECORDED = 'attendance.recorded';

/** The webhook event of a session opened (by a check-in or a save). */
export const SESSION_CREATED = 'session.created';

export const created = (entityType: Kind, row: Row, opts: { event?: string; data?: unknown } = {}): ChangeInput => ({
  churchId: row.churchId,
  entityType,
  entityId: row.id,
  action: 'created',
  after: row,
  ...opts,
});

export const updated = (entityType: Kind, before: Row, after: Row): ChangeInput => ({ churchId: after.churchId, entityType, entityId: after.id, action: 'updated', before, after });

export const destroyed = (entityType: Kind, before: Row): ChangeInput => ({ churchId: before.churchId, entityType, entityId: before.id, action: 'destroyed', before });
