import type { FastifyInstance } from 'fastify';
import { gdprAnonymize, gdprExport, givingInternal, Id, IsoDate, serveOwned, utcDay, type ZodTypeProvider } from '@church/common';
import { funds } from '../db/schema';
import { givingDeps } from '../deps';
import { anonymize } from '../domain/gdpr';
import { chargeRegistration } from '../domain/registration-charge';
import { donorIds } from '../repos/donors';
import { personRecords } from '../repos/gdpr';
import { callerOrModule } from './helpers';

const { donors, registrationCharge } = givingInternal;
/** The contract's body, its fund an id and its days dates (membership sends a day's start as an instant). */
const DonorsBody = donors.body.extend({ fundId: Id.optional(), startDate: IsoDate.optional(), endDate: IsoDate.optional() });

/**
 * Server-to-server (signed): what the other modules ask of giving. The answers are the shared contracts'
 * (`givingInternal`, `gdprExport('giving')`, `gdprAnonymize('giving')`).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = givingDeps(app);
  // Other modules' reference checks: which of these ids are the church's funds.
  serveOwned(app, 'giving', { funds });

  // Membership's saved lists ("gave to a fund between two days"): the people with a complete gift in the UTC
  // days from `startDate` to `endDate`, both included, as a campaign counts its days.
  app.post(donors.path, { config: { access: 'internal' }, schema: { body: DonorsBody, response: { 200: donors.answer } } }, async (req) => ({
    personIds: await donorIds(app.db, req.body.churchId.toLowerCase(), { fundId: req.body.fundId?.toLowerCase(), fromDay: req.body.startDate && utcDay(0, req.body.startDate), toDay: req.body.endDate && utcDay(0, req.body.endDate) }),
  }));

  // Content's registrations, charged with giving's money rules (README "Registration payments"); a signed call
  // acts as the module in the church it names.
  app.post(registrationCharge.path, { config: { access: 'internal' }, schema: { body: registrationCharge.body, response: { 200: registrationCharge.answer } } }, (req) =>
    chargeRegistration(deps, callerOrModule(req, req.body.churchId), req.body),
  );

  // GDPR (membership asks): a person's records as the API shows them, and their anonymizing (README "GDPR").
  const exportContract = gdprExport('giving');
  app.post(exportContract.path, { config: { access: 'internal' }, schema: { body: exportContract.body, response: { 200: exportContract.answer } } }, async (req) => ({
    data: await personRecords(app.db, req.body.churchId.toLowerCase(), req.body.personId.toLowerCase()),
  }));
  const anonymizeContract = gdprAnonymize('giving');
  app.post(anonymizeContract.path, { config: { access: 'internal' }, schema: { body: anonymizeContract.body, response: { 200: anonymizeContract.answer } } }, async (req) => ({
    changed: await anonymize(deps, callerOrModule(req, req.body.churchId), req.body.churchId.toLowerCase(), req.body.personId.toLowerCase()),
  }));
}
