import type { z } from 'zod';
import { hasPermission } from '@church/auth';
import { REMOTE, assertReferences, badRequest, findRow, notFound, reportChanges, rowsByIds, saveRows, unauthorized, type Actor } from '@church/common';
import { personGroupIds } from '../../clients/membership';
import { events } from '../../db/website';
import type { ContentDeps } from '../../deps';
import { attachExceptions, type EventRow } from '../../repos/website/events';
import type { EventSave } from '../../schemas/website';
import { isRequest, normalizeRule } from './events';

/** The groups the caller belongs to: membership's answer (the token carries only the groups one leads). */
export const callerGroupIds = (deps: Pick<ContentDeps, 'internal'>, actor: Actor): Promise<string[]> =>
  actor.personId ? personGroupIds(deps.internal, actor.churchId, actor.personId, actor.requestId) : Promise.resolve([]);

/** Whether the caller belongs to (or leads) the group. */
export async function inGroup(deps: Pick<ContentDeps, 'internal'>, actor: Actor, groupId: string | null): Promise<boolean> {
  if (!groupId) return false;
  if (actor.leaderGroupIds.includes(groupId)) return true;
  return actor.personId ? (await callerGroupIds(deps, actor)).includes(groupId) : false;
}

/**
 * Whether the caller reads a group's events that are not public: website editors, and the group's leaders and
 * members (asked of membership once). Everyone else sees its public events only (issue 31: a guest read private
 * events of any group).
 */
export async function readsPrivate(deps: Pick<ContentDeps, 'internal'>, actor: Actor, groupId: string | null): Promise<boolean> {
  if (hasPermission(actor, 'Content.Edit', 'ContentApi')) return true;
  return inGroup(deps, actor, groupId);
}

/**
 * Saves a batch of events (`param(i, field)` names a field of item `i`). An event of a group is written by website
 * editors or that group's leaders; an event without a group (a member's request) only by website editors. A
 * request becomes public only through its approval. The groups and forms named must be the church's (asked of
 * membership before the transaction); each save is reported as `event.created` or `event.updated`.
 */
export async function saveEvents(deps: Pick<ContentDeps, 'db' | 'internal' | 'queue' | 'module'>, actor: Actor, items: Array<z.output<typeof EventSave>>, param: (i: number, field: string) => string) {
  const churchId = actor.churchId;
  const editor = hasPermission(actor, 'Content.Edit', 'ContentApi');
  const known = new Map((await rowsByIds(deps.db, events, churchId, items.flatMap((e) => (e.id ? [e.id] : [])))).map((e) => [e.id, e]));
  // the groups that items move to or start in, and the forms
  const named = items.map((e) => {
    const old = known.get(e.id ?? '');
    return { groupId: e.groupId !== old?.groupId ? e.groupId : undefined, formId: e.formId !== old?.formId ? e.formId : undefined };
  });
  await assertReferences(deps, churchId, named, { groupId: REMOTE.groups, formId: REMOTE.forms }, param);
  const rows = await deps.db.transaction(async (tx) => {
    const out: EventRow[] = [];
    for (const [i, { id, ...fields }] of items.entries()) {
      const at = (field: string) => param(i, field);
      const old = id ? await findRow(tx, events, churchId, id) : undefined;
      if (id && !old) throw notFound('Event');
      if (!old) for (const f of ['groupId', 'start', 'end', 'title'] as const) if (!fields[f]) throw badRequest(at(f), 'is required');
      if (!editor) {
        if (old && !old.groupId) throw unauthorized('Missing permission: Content.Edit (an event without a group)');
        for (const groupId of new Set([old?.groupId, fields.groupId].filter((g): g is string => Boolean(g)))) {
          if (!actor.leaderGroupIds.includes(groupId)) throw unauthorized('Missing permission: Content.Edit or leader of the group');
        }
      }
      if (old && isRequest(old) && fields.visibility === 'public' && old.visibility !== 'public') {
        throw badRequest(at('visibility'), 'a requested event becomes public when it is approved');
      }
      const start = fields.start ?? old!.start;
      const end = fields.end ?? old!.end;
      if (end < start) throw badRequest(at('end'), 'must not be before start');
      const opens = fields.registrationOpenDate === undefined ? old?.registrationOpenDate : fields.registrationOpenDate;
      const closes = fields.registrationCloseDate === undefined ? old?.registrationCloseDate : fields.registrationCloseDate;
      if (opens && closes && closes < opens) throw badRequest(at('registrationCloseDate'), 'must not be before registrationOpenDate');
      const values = { ...fields, ...(fields.recurrenceRule !== undefined ? { recurrenceRule: normalizeRule(fields.recurrenceRule, at('recurrenceRule')) } : {}) };
      const [row] = await saveRows(tx, events, churchId, [old ? { ...values, id: old.id } : { ...values, groupId: fields.groupId!, start, end, title: fields.title! }]);
      out.push(row!);
      const action = old ? 'updated' : 'created';
      await reportChanges(deps, [{ churchId, entityType: 'event', entityId: row!.id, action, event: `event.${action}`, before: old, after: row }], { req: actor, tx });
    }
    return out;
  });
  return attachExceptions(deps.db, churchId, rows);
}
