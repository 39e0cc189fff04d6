import type { FastifyInstance } from 'fastify';
import { anyUser } from '@church/auth';
import { IdParams, batchOf, itemParam, notFound, type ZodTypeProvider } from '@church/common';
import { depsOf } from '../deps';
import { PRIVATE_TYPE } from '../domain/access';
import { expandPairs, hidePair, me, openPair, savePairs } from '../domain/private';
import { markRead } from '../repos/notifications';
import { findPrivate, inboxOf, markInboxRead, pairBetween } from '../repos/private-messages';
import { Empty } from '../schemas/common';
import { ExistingPrivateMessage, OtherPersonParams, PrivateMessage, PrivateMessages, SavePrivate } from '../schemas/private-messages';

const base = '/messaging/privatemessages';

/** `/messaging/privatemessages`: one conversation per pair of people; `notifyPersonId` holds who has not read it. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = depsOf(app);

  // The inbox, as it was before this read marked it read (the apps show what was unread).
  app.get(base, { config: { access: anyUser }, schema: { response: { 200: PrivateMessages } } }, async (req) => {
    const personId = me(req.auth);
    const out = await expandPairs(app.db, req.auth.churchId, await inboxOf(app.db, req.auth.churchId, personId));
    await markInboxRead(app.db, req.auth.churchId, personId);
    await markRead(app.db, req.auth.churchId, personId, { contentType: PRIVATE_TYPE });
    return out;
  });

  // `{}` when the caller has no conversation with that person.
  app.get(`${base}/existing/:personId`, { config: { access: anyUser }, schema: { params: OtherPersonParams, response: { 200: ExistingPrivateMessage } } }, async (req) => {
    const row = await pairBetween(app.db, req.auth.churchId, me(req.auth), req.params.personId);
    return row ? (await expandPairs(app.db, req.auth.churchId, [row]))[0]! : {};
  });

  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: PrivateMessage } } }, async (req) => {
    const personId = me(req.auth);
    const row = await findPrivate(app.db, req.auth.churchId, req.params.id);
    if (!row || (row.fromPersonId !== personId && row.toPersonId !== personId)) throw notFound('Private message');
    return (await expandPairs(app.db, req.auth.churchId, [await openPair(app.db, row, personId)]))[0]!;
  });

  app.post(base, { config: { access: anyUser }, schema: { body: batchOf(SavePrivate), response: { 200: PrivateMessages } } }, async (req) =>
    savePairs(deps, req.auth, req.body, (i, field) => itemParam(req, i, field)),
  );

  // B1App's messages screen: the conversation leaves the caller's inbox (the other person keeps it).
  app.delete(`${base}/:id`, { config: { access: anyUser }, schema: { summary: 'Take a private conversation out of your inbox', params: IdParams, response: { 200: Empty } } }, async (req) => {
    await hidePair(deps, req.auth, req.params.id);
    return {};
  });
}
