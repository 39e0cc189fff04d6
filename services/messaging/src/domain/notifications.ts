import type { z } from 'zod';
import { notFound, unauthorized, type Actor } from '@church/common';
import type { MessagingDeps } from '../deps';
import { contacts } from '../clients/membership';
import { findNotification, updateNotification, type NotificationRow } from '../repos/notifications';
import type { Ping, SaveNotification } from '../schemas/notifications';
import { isStaff } from './access';
import { assertPeopleOfChurch, notify, notifyRows } from './notify';

/** Who may save anyone's notifications (others save only their own). */
export const NOTIFICATION_STAFF = ['People.Edit'];

/**
 * Saves notifications in one transaction, in input order: the caller's own, or anyone's of the church with
 * People.Edit (a new one for a person of the church: membership is asked before the transaction). New ones are
 * delivered (socket, push, email) by the job written with them; another church's id, or someone else's notification
 * without People.Edit, is a 404.
 */
export async function saveNotifications(
  deps: Pick<MessagingDeps, 'db' | 'queue' | 'internal'>,
  actor: Actor,
  items: Array<z.output<typeof SaveNotification>>,
  param: (i: number, field: string) => string,
): Promise<NotificationRow[]> {
  const { churchId } = actor;
  const staff = isStaff(actor, ...NOTIFICATION_STAFF);
  // a new notification is for a person of the church (membership asked before the transaction)
  if (staff) await assertPeopleOfChurch(deps, churchId, items.map((item) => (item.id ? null : item.personId)), (i) => param(i, 'personId'), actor.personId);
  return deps.db.transaction(async (tx) => {
    const out = [];
    for (const [i, item] of items.entries()) {
      if (!staff && item.personId !== actor.personId) throw unauthorized(`${param(i, 'personId')}: only your own notifications without People.Edit`);
      const { id, ...values } = item;
      if (!id) {
        out.push(...(await notifyRows(deps, churchId, [{ ...values, churchId, triggeredByPersonId: actor.personId }], tx)));
        continue;
      }
      const existing = await findNotification(tx, churchId, id);
      if (!existing || (!staff && existing.personId !== actor.personId)) throw notFound('Notification');
      out.push((await updateNotification(tx, churchId, id, values))!);
    }
    return out;
  });
}

/**
 * A ping (public, as the spec has it): a notification to a person of the church, from another one when named.
 * Membership answers only the church's live people: an unknown church or person finds nobody (404).
 */
export async function ping(deps: Pick<MessagingDeps, 'db' | 'queue' | 'internal'>, body: z.output<typeof Ping>): Promise<NotificationRow[]> {
  const ids = [body.personId, ...(body.triggeredByPersonId ? [body.triggeredByPersonId] : [])];
  const found = await contacts(deps, body.churchId, { ids });
  if (!found.some((p) => p.id === body.personId)) throw notFound('Person');
  if (body.triggeredByPersonId && !found.some((p) => p.id === body.triggeredByPersonId)) throw notFound('Triggering person');
  return notify(deps, {
    churchId: body.churchId,
    personIds: [body.personId],
    message: body.message,
    contentType: body.contentType,
    contentId: body.contentId,
    triggeredByPersonId: body.triggeredByPersonId,
  });
}
