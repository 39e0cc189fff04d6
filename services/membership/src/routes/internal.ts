import type { FastifyInstance } from 'fastify';
import { membershipInternal as contract, revocationsContract, type ZodTypeProvider } from '@church/common';
import { namesOf } from '../repos/people';
import { revocationsSince } from '../domain/revocations';

/** Server-to-server routes (signed with INTERNAL_SECRET), one per line of what other modules ask. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // Attendance names the people of sessions and visits; removed people keep their names in history.
  app.post(contract.peopleBasic.path, { config: { access: 'internal' }, schema: { body: contract.peopleBasic.body, response: { 200: contract.peopleBasic.answer } } }, (req) =>
    namesOf(app.db, req.body.churchId, [...new Set(req.body.ids)]),
  );

  // Every other service's token-revocation poller (packages/common revocations.ts).
  app.post(
    revocationsContract.path,
    { config: { access: 'internal' }, schema: { body: revocationsContract.body, response: { 200: revocationsContract.answer } } },
    (req) => revocationsSince(app.db, req.body.since),
  );
}
