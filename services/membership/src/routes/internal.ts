import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Id, revocationsContract, type ZodTypeProvider } from '@church/common';
import { namesOf } from '../repos/people';
import { revocationsSince } from '../domain/revocations';

const BasicBody = z.object({ churchId: Id, ids: z.array(Id).max(5000) });
const BasicList = z.array(
  z.object({ id: z.string(), displayName: z.string().nullable(), firstName: z.string().nullable(), lastName: z.string().nullable(), photo: z.string().nullable() }),
);

/** Server-to-server routes (signed with INTERNAL_SECRET), one per line of what other modules ask. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // Attendance names the people of sessions and visits; removed people keep their names in history.
  app.post('/membership/internal/people/basic', { config: { access: 'internal' }, schema: { body: BasicBody, response: { 200: BasicList } } }, (req) =>
    namesOf(app.db, req.body.churchId, [...new Set(req.body.ids)]),
  );

  // Every other service's token-revocation poller (packages/common revocations.ts).
  app.post(
    revocationsContract.path,
    { config: { access: 'internal' }, schema: { body: revocationsContract.body, response: { 200: revocationsContract.answer } } },
    (req) => revocationsSince(app.db, req.body.since),
  );
}
