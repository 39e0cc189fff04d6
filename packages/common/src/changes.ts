import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ModuleName } from './config';
import { keptPer } from './batch';
import { callInternal, membershipInternal } from './contracts/index';
import type { Actor } from './actor';
import type { DbOrTx } from './db';
import type { InternalClient } from './internal';
import { DELIVERY_RETRIES, jobContract, type Queue } from './queue';

/**
 * What happened to a church's records, in every module, as one stream: membership keeps it as the church's audit
 * log (who changed what and when, field by field) and hands the events a church subscribed to its webhooks. A
 * module reports a change in the transaction that makes it (`reportChanges` with `tx`), so the log never misses a
 * committed change and never holds one that rolled back. `crud()` reports its saves and deletes by itself.
 */

/** The webhook events a church may subscribe to, by what they are about (the apps list them in these groups). */
export const CHANGE_EVENTS = {
  person: ['person.created', 'person.updated', 'person.destroyed'],
  group: ['group.created', 'group.updated', 'group.destroyed'],
  groupMember: ['group.member.added', 'group.member.removed', 'group.member.requested'],
  household: ['household.created', 'household.updated', 'household.destroyed'],
  donation: ['donation.created', 'donation.updated'],
  attendance: ['attendance.recorded', 'attendance.checkout'],
  session: ['session.created'],
  formSubmission: ['form.submission.created'],
  event: ['event.created', 'event.updated', 'event.destroyed'],
  registration: ['registration.created'],
  list: ['list.member.added', 'list.member.removed'],
} as const;
export type ChangeEvent = (typeof CHANGE_EVENTS)[keyof typeof CHANGE_EVENTS][number];
export const ALL_CHANGE_EVENTS: readonly string[] = Object.values(CHANGE_EVENTS).flat();

/** One change of one record. */
export const ChangeRecord = z.object({
  churchId: z.uuid(),
  module: z.string().max(20),
  /** what kind of record (`person`, `campus`, `donation`), singular */
  entityType: z.string().min(1).max(60),
  entityId: z.string().max(200),
  /** `created`, `updated`, `destroyed`, or a verb of the module's own (`approved`, `impersonated`) */
  action: z.string().min(1).max(60),
  /** the webhook event this change is, when it is one (`person.created`) */
  event: z.string().max(60).optional(),
  /** who did it: the user and their person in the church, and from where (absent for the system itself) */
  userId: z.string().nullish(),
  personId: z.string().nullish(),
  ip: z.string().max(100).nullish(),
  at: z.string(),
  /** the fields that changed, each with its value before and after (sensitive fields are left out) */
  changes: z.record(z.string(), z.object({ before: z.unknown(), after: z.unknown() })).optional(),
  /** the record as it is now, for a webhook's payload */
  data: z.unknown().optional(),
  /** the import or bulk change this was part of, which the audit log keeps (and an undo finds) */
  batchId: z.string().max(100).optional(),
  /** `false` for a high-volume change the audit log does not keep (a check-in): it travels only as its event */
  logged: z.literal(false).optional(),
});
export type ChangeRecord = z.output<typeof ChangeRecord>;

/** Membership's job that writes changes to the audit log and hands them to the church's webhooks. */
export const changesReported = jobContract({
  name: 'membership.changes',
  schema: z.object({ records: z.array(ChangeRecord).min(1).max(5000) }),
  ...DELIVERY_RETRIES,
});

/**
 * Doing's job that starts the workflow triggers a church set on webhook events (`person.created`,
 * `donation.created`, …). Membership forwards the changes that are events, in the transaction that logs them, so a
 * trigger sees each event once its change has committed; `records` keep their `at` and ids, by which doing runs a
 * trigger once per event whatever the retries.
 */
export const workflowEvents = jobContract({
  name: 'doing.workflowEvents',
  schema: z.object({ records: z.array(ChangeRecord).min(1).max(5000) }),
  ...DELIVERY_RETRIES,
});

/** Fields never written into the audit log, whatever the record: secrets and the bookkeeping of every row. */
const NOT_LOGGED = /(password|secret|token|hash|key|guid|code)$/i;
const BOOKKEEPING = new Set(['id', 'churchId', 'createdAt', 'updatedAt', 'removed', 'timeUpdated', 'dateModified']);

/** The fields that differ between two versions of a record (both may be absent: a creation, a deletion). */
export function fieldChanges(before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined): Record<string, { before: unknown; after: unknown }> {
  const out: Record<string, { before: unknown; after: unknown }> = {};
  for (const key of new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])) {
    if (BOOKKEEPING.has(key) || NOT_LOGGED.test(key)) continue;
    const a = plain(before?.[key]);
    const b = plain(after?.[key]);
    if (JSON.stringify(a) !== JSON.stringify(b)) out[key] = { before: a ?? null, after: b ?? null };
  }
  return out;
}

const plain = (v: unknown) => (v instanceof Date ? v.toISOString() : v);

/** Who made a change: the request's caller or the Actor domain code was given (a job or a webhook has none). */
function changedBy(by?: FastifyRequest | Actor): Pick<ChangeRecord, 'userId' | 'personId' | 'ip'> {
  if (!by) return {};
  if ('requestId' in by) return { userId: by.id || null, personId: by.personId ?? null, ip: by.ip || null };
  const auth = by.auth as { id?: string; personId?: string | null } | null | undefined;
  return { userId: auth?.id ?? null, personId: auth?.personId ?? null, ip: by.ip ?? null };
}

export interface ChangeInput {
  churchId: string;
  entityType: string;
  entityId: string;
  action: string;
  event?: string;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  /** the webhook payload when it differs from `after` */
  data?: unknown;
  batchId?: string;
  /**
   * `false` for the high-volume changes the audit log leaves out, as the apps' own API does (a Sunday's check-ins:
   * each visit, the sessions it opens and the visits it replaces). Such a change is reported only as its event,
   * and only when the church listens for that event (`listening`), so a check-in nobody hears costs no job.
   */
  logged?: false;
}

/**
 * Reports changes of this module's records: in `tx` (the change's transaction) when given, so the report and the
 * change commit together. An update that changed no field is not reported.
 */
export async function reportChanges(
  deps: { module: ModuleName; queue: Queue },
  changes: ChangeInput[],
  opts: {
    /** who made the change: a route's request, or the Actor domain code acts for */
    req?: FastifyRequest | Actor;
    tx?: DbOrTx;
    /** the events the church listens for (`listenedEvents`), for the changes not logged; `null` when unknown: all go */
    listening?: ReadonlySet<string> | null;
  } = {},
): Promise<void> {
  const actor = changedBy(opts.req);
  const at = new Date().toISOString();
  const records: ChangeRecord[] = [];
  for (const c of changes) {
    if (c.logged === false && (!c.event || (opts.listening && !opts.listening.has(c.event)))) continue;
    const fields = fieldChanges(c.before, c.after);
    if (c.action === 'updated' && !Object.keys(fields).length) continue;
    records.push({
      churchId: c.churchId,
      module: deps.module,
      entityType: c.entityType,
      entityId: c.entityId,
      action: c.action,
      ...(c.event ? { event: c.event } : {}),
      ...actor,
      at,
      changes: fields,
      ...(c.event ? { data: jsonSafe(c.data ?? c.after ?? { id: c.entityId }) } : {}),
      ...(c.batchId ? { batchId: c.batchId } : {}),
      ...(c.logged === false ? { logged: false as const } : {}),
    });
  }
  for (let i = 0; i < records.length; i += 5000) await deps.queue.enqueue(changesReported, { records: records.slice(i, i + 5000) }, { tx: opts.tx });
}

/** How long a module trusts what membership said a church listens for: a new webhook or trigger hears within it. */
export const LISTENED_EVENTS_TTL_MS = 5_000;
const listenedKept = keptPer<InternalClient, Promise<ReadonlySet<string> | null>>({ max: 10_000, ttl: LISTENED_EVENTS_TTL_MS });

/**
 * The events a church listens for now (its webhooks' and its workflow triggers'), from membership, kept for
 * `LISTENED_EVENTS_TTL_MS` per church and asked once however many requests wait for it. `null` when membership
 * cannot say (away, or an old deployment): the caller then hands every event on, and asks again a second later.
 */
export function listenedEvents(internal: InternalClient, churchId: string): Promise<ReadonlySet<string> | null> {
  const kept = listenedKept(internal);
  let answer = kept.get(churchId);
  if (!answer) {
    answer = callInternal(internal, membershipInternal.listenedEvents, { churchId }).then(
      (a) => new Set(a.events),
      () => {
        kept.set(churchId, Promise.resolve(null), { ttl: 1000 });
        return null;
      },
    );
    kept.set(churchId, answer);
  }
  return answer;
}

/** A record as JSON would carry it (dates as ISO text, no secrets). */
function jsonSafe(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  return JSON.parse(JSON.stringify(value, (key, v) => (key && NOT_LOGGED.test(key) ? undefined : v)));
}
