import type { FastifyInstance } from 'fastify';
import { badRequest, dataVersion, membershipInternal as contract, notFound, type ZodTypeProvider } from '@church/common';
import { updatePersonFor } from '../domain/people/save';
import { churchBrief, contactsOf, peopleFacts, setOptedOutByPhone } from '../repos/contacts';

const internal = { access: 'internal' as const };

/**
 * Membership's internal routes other modules call through `membershipInternal` (packages/common/src/contracts.ts):
 * the body is validated by the contract's `body`, the answer serialized by its `answer`. Signed calls only.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.post(contract.church.path, { config: internal, schema: { body: contract.church.body, response: { 200: contract.church.answer } } }, async (req) => {
    const church = await churchBrief(app.db, req.body.churchId);
    if (!church) throw notFound('Church');
    return church;
  });

  app.post(contract.contacts.path, { config: internal, schema: { body: contract.contacts.body, response: { 200: contract.contacts.answer } } }, async (req) => {
    const { churchId, ids, groupId } = req.body;
    if (!ids && !groupId) throw badRequest('ids', 'ids or groupId is required');
    return contactsOf(app.db, churchId, { ids: ids && [...new Set(ids)], groupId });
  });

  app.post(contract.peopleFacts.path, { config: internal, schema: { body: contract.peopleFacts.body, response: { 200: contract.peopleFacts.answer } } }, (req) =>
    peopleFacts(app.db, req.body.churchId, req.body.ids && [...new Set(req.body.ids)]),
  );

  app.post(contract.version.path, { config: internal, schema: { body: contract.version.body, response: { 200: contract.version.answer } } }, async (req) => ({
    version: await dataVersion(app.deps.database, req.body.churchId),
  }));

  // The same save as `POST /membership/people` (displayName recomputed, photos stored the same way), with
  // every field a People.Edit holder may change; errors name the field under `changes`.
  app.post(contract.updatePerson.path, { config: internal, schema: { body: contract.updatePerson.body, response: { 200: contract.updatePerson.answer } } }, (req) =>
    updatePersonFor(app.deps, req.body.churchId, req.body.personId, req.body.changes),
  );

  app.post(contract.optOut.path, { config: internal, schema: { body: contract.optOut.body, response: { 200: contract.optOut.answer } } }, async (req) => {
    const { churchId, phone, optedOut } = req.body;
    if (phone.replace(/\D/g, '').length < 7) throw badRequest('phone', 'phone must have at least 7 digits');
    return { personIds: await setOptedOutByPhone(app.db, churchId, phone, optedOut) };
  });
}
