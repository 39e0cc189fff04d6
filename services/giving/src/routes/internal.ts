import type { FastifyInstance } from 'fastify';
import { gdprAnonymize, gdprExport, givingInternal, Id, IsoDate, reportChanges, serveOwned, utcDay, type ZodTypeProvider } from '@church/common';
import { funds } from '../db/schema';
import { chargeRegistration } from '../domain/registration-charge';
import { donorIds } from '../repos/donors';
import { anonymizePerson, personRecords } from '../repos/gdpr';

const { donors, registrationCharge } = givingInternal;
/** The contract's body, its fund an id and its days dates (membership sends a day's start as an instant). */
const DonorsBody = donors.body.extend({ fundId: Id.optional(), startDate: IsoDate.optional(), endDate: IsoDate.optional() });

/**
 * Server-to-server (signed): what the other modules ask of giving. The answers are the shared contracts'
 * (`givingInternal`, `gdprExport('giving')`, `gdprAnonymize('giving')`).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  // Other modules' reference checks: which of these ids are the church's funds.
  serveOwned(app, 'giving', { funds });

  // Membership's saved lists ("gave to a fund between two days"): the people with a complete gift in the UTC
  // days from `startDate` to `endDate`, both included, as a campaign counts its days.
  app.post(donors.path, { config: { access: 'internal' }, schema: { body: DonorsBody, response: { 200: donors.answer } } }, async (req) => ({
    personIds: await donorIds(app.db, req.body.churchId.toLowerCase(), { fundId: req.body.fundId?.toLowerCase(), fromDay: req.body.startDate && utcDay(0, req.body.startDate), toDay: req.body.endDate && utcDay(0, req.body.endDate) }),
  }));

  // Content's registrations, charged with giving's money rules (README "Registration payments").
  app.post(registrationCharge.path, { config: { access: 'internal' }, schema: { body: registrationCharge.body, response: { 200: registrationCharge.answer } } }, (req) =>
    chargeRegistration(app, req, req.body),
  );

  // GDPR (membership asks): a person's records as the API shows them, and their anonymizing (README "GDPR").
  const exportContract = gdprExport('giving');
  app.post(exportContract.path, { config: { access: 'internal' }, schema: { body: exportContract.body, response: { 200: exportContract.answer } } }, async (req) => ({
    data: await personRecords(app.db, req.body.churchId.toLowerCase(), req.body.personId.toLowerCase()),
  }));
  const anonymizeContract = gdprAnonymize('giving');
  app.post(anonymizeContract.path, { config: { access: 'internal' }, schema: { body: anonymizeContract.body, response: { 200: anonymizeContract.answer } } }, async (req) => {
    const churchId = req.body.churchId.toLowerCase();
    const changed = await app.db.transaction(async (tx) => {
      const ids = await anonymizePerson(tx, churchId, req.body.personId.toLowerCase());
      // Reported by id only: the audit log must not keep the details just removed.
      const entityTypes = { donations: 'donation', customers: 'customer', paymentMethods: 'paymentMethod', registrationPayments: 'registrationPayment' } as const;
      const changes = Object.entries(ids).flatMap(([kind, list]) =>
        list.map((entityId) => ({ churchId, entityType: entityTypes[kind as keyof typeof ids], entityId, action: kind === 'paymentMethods' ? 'destroyed' : 'anonymized' })),
      );
      await reportChanges(app.deps, changes, { req, tx });
      return ids;
    });
    return { changed: Object.fromEntries(Object.entries(changed).map(([kind, list]) => [kind, list.length])) };
  });
}
