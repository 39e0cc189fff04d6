import type { FastifyInstance } from 'fastify';
import twilio from 'twilio';
import { requires } from '@church/auth';
import { IdParams, REMOTE, badRequest, batchOf, checkReferences, notFound, reportChanges, webhookIntake, type ZodTypeProvider } from '@church/common';
import { depsOf } from '../deps';
import { contacts } from '../clients/membership';
import { classify, credits, previewGroup, queueTexts } from '../domain/texting';
import { smsWebhook } from '../jobs/contracts';
import { SMS_PROVIDERS } from '../providers/sms';
import { deleteProvider, findSentText, insertProvider, logsOfSentText, providerById, providersOf, sentTextsOf, updateProvider, type ProviderRow } from '../repos/texting';
import { Empty } from '../schemas/common';
import { Credits, EMPTY_TWIML, GroupParams, GroupTextResult, ProviderParams, Providers, SaveProvider, SendGroup, SendPerson, SentTextDetails, SentTexts, TextPreview, TwimlAnswer } from '../schemas/texting';

const base = '/messaging/texting';
const texting = requires('Texting.Send');

export const MASK = '••••••••';
/** Credentials never leave in full: the key keeps its last 4 characters, the secret none. */
const masked = (p: ProviderRow) => ({ ...p, apiKey: p.apiKey ? `${MASK}${p.apiKey.slice(-4)}` : null, apiSecret: p.apiSecret ? MASK : null });

/**
 * An inbound SMS is at most 1,600 characters; Twilio's form adds its own fields (numbers, places, media links). Far
 * below the service's body limit: a webhook cannot make this route read megabytes before its signature is checked.
 */
const SMS_WEBHOOK_BODY_LIMIT = 32 * 1024;

/** `/messaging/texting` and Twilio's webhooks (inbound SMS, status callbacks). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = depsOf(app);

  app.get(`${base}/providers`, { config: { access: texting }, schema: { response: { 200: Providers } } }, async (req) => (await providersOf(app.db, req.auth.churchId)).map(masked));

  // Secrets are sealed; a masked value sent back (what the settings screen read) keeps the stored one. Reported to
  // the audit log field by field, credentials left out.
  app.post(`${base}/providers`, { config: { access: texting }, schema: { body: batchOf(SaveProvider), response: { 200: Providers } } }, async (req) =>
    app.db.transaction(async (tx) => {
      const out: ProviderRow[] = [];
      for (const item of req.body) {
        const { id, apiSecret, ...values } = item;
        const provider = values.provider.toLowerCase();
        if (!SMS_PROVIDERS.has(provider)) throw badRequest('provider', `${values.provider} is not a texting provider this server sends through (supported: ${[...SMS_PROVIDERS].join(', ')})`);
        const secret = apiSecret && !apiSecret.startsWith(MASK) && apiSecret !== '********' ? { apiSecret: app.deps.secrets.encrypt(apiSecret) } : {};
        const key = values.apiKey && !values.apiKey.startsWith(MASK) && values.apiKey !== '********' ? { apiKey: values.apiKey } : {};
        const row = { ...values, provider, ...key, ...secret };
        if (!id && (!key.apiKey || !secret.apiSecret)) throw badRequest(key.apiKey ? 'apiSecret' : 'apiKey', 'is required for a new provider');
        if (!key.apiKey) delete row.apiKey;
        const before = id ? (await providersOf(tx, req.auth.churchId)).find((p) => p.id === id) : undefined;
        if (id && !before) throw notFound('Texting provider');
        const saved = id ? (await updateProvider(tx, req.auth.churchId, id, row))! : await insertProvider(tx, req.auth.churchId, row);
        await reportChanges(app.deps, [{ churchId: req.auth.churchId, entityType: 'textingProvider', entityId: saved.id, action: before ? 'updated' : 'created', before, after: saved }], { req, tx });
        out.push(saved);
      }
      return out.map(masked);
    }),
  );

  app.delete(`${base}/providers/:id`, { config: { access: texting }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) =>
    app.db.transaction(async (tx) => {
      const gone = await deleteProvider(tx, req.auth.churchId, req.params.id);
      if (!gone) throw notFound('Texting provider');
      await reportChanges(app.deps, [{ churchId: req.auth.churchId, entityType: 'textingProvider', entityId: gone.id, action: 'destroyed', before: gone }], { req, tx });
      return {};
    }),
  );

  // B1Admin's texting settings: the balance the church's provider reports (never a figure of ours); a clear 400 when
  // there is no provider, or it is one that reports none.
  app.get(`${base}/credits`, { config: { access: texting }, schema: { summary: 'The texting balance the church\'s provider reports', response: { 200: Credits } } }, async (req) =>
    credits(deps, req.auth.churchId),
  );

  app.get(`${base}/preview/:groupId`, { config: { access: texting }, schema: { params: GroupParams, response: { 200: TextPreview } } }, async (req) =>
    previewGroup(deps, req.auth.churchId, req.params.groupId),
  );

  app.get(`${base}/sent`, { config: { access: texting }, schema: { response: { 200: SentTexts } } }, async (req) => sentTextsOf(app.db, req.auth.churchId));

  app.get(`${base}/sent/:id/details`, { config: { access: texting }, schema: { params: IdParams, response: { 200: SentTextDetails } } }, async (req) => {
    const text = await findSentText(app.db, req.auth.churchId, req.params.id);
    if (!text) throw notFound('Sent text');
    return { ...text, logs: await logsOfSentText(app.db, req.auth.churchId, text.id) };
  });

  app.post(`${base}/send`, { config: { access: texting }, schema: { body: SendGroup, response: { 200: GroupTextResult } } }, async (req) => {
    await checkReferences(req, [req.body], { groupId: REMOTE.groups });
    const members = await contacts(deps, req.auth.churchId, { groupId: req.body.groupId });
    const { eligible, optedOut, noPhone } = classify(members);
    return queueTexts(
      deps,
      req.auth.churchId,
      { groupId: req.body.groupId, message: req.body.message, senderPersonId: req.auth.personId, totalMembers: members.length, optedOut, noPhone },
      eligible.map((p) => ({ personId: p.id, phone: p.mobilePhone! })),
    );
  });

  app.post(`${base}/sendPerson`, { config: { access: texting }, schema: { body: SendPerson, response: { 200: GroupTextResult } } }, async (req) => {
    const [person] = await contacts(deps, req.auth.churchId, { ids: [req.body.personId] });
    if (!person) throw notFound('Person');
    if (person.optedOut) throw badRequest('personId', 'this person opted out of texts');
    const phone = req.body.phoneNumber ?? person.mobilePhone;
    if (!phone || phone.replace(/\D/g, '').length < 8) throw badRequest('phoneNumber', 'the person has no mobile phone');
    return queueTexts(deps, req.auth.churchId, { recipientPersonId: person.id, message: req.body.message, senderPersonId: req.auth.personId, totalMembers: 1, optedOut: 0, noPhone: 0 }, [{ personId: person.id, phone }]);
  });

  // Twilio calls these with a form body signed by the account's auth token (X-Twilio-Signature); the body is bounded
  // for these routes alone.
  // Twilio's callbacks are not an API of the apps: hidden from the document. They answer empty TwiML (`text/xml`),
  // sent as it is (Fastify serializes no string of a non-JSON type).
  await root.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.bodyLimit = SMS_WEBHOOK_BODY_LIMIT;
    });
    for (const kind of ['inbound', 'status'] as const) {
      webhookIntake(scope, {
        path: `${base}/webhooks/:providerId/${kind}`,
        schema: { params: ProviderParams, response: { 200: TwimlAnswer }, hide: true },
        provider: () => 'twilio',
        job: smsWebhook,
        answer: () => ({ type: 'text/xml', body: EMPTY_TWIML }),
        async verify(req, raw) {
          const { providerId } = req.params as { providerId: string };
          const row = await providerById(app.db, providerId);
          if (!row?.apiSecret) throw notFound('Texting provider');
          const params = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
          const signature = req.headers['x-twilio-signature'];
          const url = `${deps.config.PUBLIC_BASE_URL.replace(/\/$/, '')}${req.url}`;
          let token: string;
          try {
            token = app.deps.secrets.decrypt(row.apiSecret);
          } catch {
            throw badRequest('X-Twilio-Signature', 'cannot verify');
          }
          if (typeof signature !== 'string' || !twilio.validateRequest(token, signature, url, params)) throw badRequest('X-Twilio-Signature', 'signature does not match', 'header');
          const sid = params.MessageSid ?? params.SmsSid;
          if (!sid) throw badRequest('MessageSid', 'is required');
          return kind === 'status'
            ? { churchId: row.churchId, eventId: `${sid}:${params.MessageStatus ?? params.SmsStatus ?? ''}`, type: 'status', payload: params }
            : { churchId: row.churchId, eventId: sid, type: 'inbound', payload: params };
        },
      });
    }
  });
}
