import type { FastifyInstance } from 'fastify';
import { callInternal, doingInternal, membershipInternal as contract, revocationsContract, serveOwned, type ZodTypeProvider } from '@church/common';
import { formSubmissions, forms, groups, households, people, sites } from '../db/schema';
import { namesOf } from '../repos/people';
import { subscribedEvents } from '../repos/webhooks';
import { revocationsSince } from '../domain/revocations';

/** Server-to-server routes (signed with INTERNAL_SECRET), one per line of what other modules ask. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  // Other modules' reference checks: which of these ids are the church's people, groups, households, forms, form
  // submissions, sites.
  serveOwned(app, 'membership', { people, groups, households, forms, formSubmissions, sites });

  // Attendance names the people of sessions and visits; removed people keep their names in history.
  app.post(contract.peopleBasic.path, { config: { access: 'internal' }, schema: { body: contract.peopleBasic.body, response: { 200: contract.peopleBasic.answer } } }, (req) =>
    namesOf(app.db, req.body.churchId, [...new Set(req.body.ids)]),
  );

  // What a church listens for: its webhooks' events and its workflow triggers' (doing's). A module reporting
  // high-volume changes (attendance's check-ins) hands on only these; doing away is a 502, and the caller then
  // hands everything on.
  app.post(contract.listenedEvents.path, { config: { access: 'internal' }, schema: { body: contract.listenedEvents.body, response: { 200: contract.listenedEvents.answer } } }, async (req) => {
    const { churchId } = req.body;
    const [subscribed, triggers] = await Promise.all([subscribedEvents(app.db, churchId), callInternal(app.deps.internal, doingInternal.triggerEvents, { churchId })]);
    return { events: [...new Set([...subscribed, ...triggers.events])].sort() };
  });

  // Every other service's token-revocation poller (packages/common revocations.ts).
  app.post(
    revocationsContract.path,
    { config: { access: 'internal' }, schema: { body: revocationsContract.body, response: { 200: revocationsContract.answer } } },
    (req) => revocationsSince(app.db, req.body.since),
  );
}
