import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, asc, desc, eq } from 'drizzle-orm';
import twilio from 'twilio';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Id, IdParams, badRequest, batchOf, notFound, webhookIntake, type ZodTypeProvider } from '@church/common';
import { messaging } from '../app';
import { deliveryLogs, sentTexts, textingProviders } from '../db/schema';
import { contacts } from '../domain/people';
import { classify, previewGroup, queueTexts } from '../domain/texting';
import { smsWebhook } from '../jobs';

const texting = requires('Texting.Send');

const SaveProvider = z.object({
  id: Id.optional(),
  provider: z.enum(['twilio']).default('twilio'),
  name: z.string().trim().max(200).nullish(),
  apiKey: z.string().trim().min(1).max(200).optional(),
  /** sent in full to set it; the masked value read back (or nothing) keeps the stored one */
  apiSecret: z.string().trim().max(500).optional(),
  fromNumber: z.string().trim().max(40).nullish(),
  enabled: z.boolean().optional(),
});

type ProviderRow = typeof textingProviders.$inferSelect;

export const MASK = '••••••••';
/** Credentials never leave in full: the key keeps its last 4 characters, the secret none. */
const masked = (p: ProviderRow) => ({
  id: p.id,
  churchId: p.churchId,
  provider: p.provider,
  name: p.name,
  fromNumber: p.fromNumber,
  enabled: p.enabled,
  apiKey: p.apiKey ? `${MASK}${p.apiKey.slice(-4)}` : null,
  apiSecret: p.apiSecret ? MASK : null,
});

const Message = z.string().trim().min(1).max(1600);

/** `/messaging/texting` and Twilio's webhooks (inbound SMS, status callbacks). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = () => messaging.deps(app);

  app.get('/messaging/texting/providers', { config: { access: texting } }, async (req) =>
    (await app.db.select().from(textingProviders).where(eq(textingProviders.churchId, req.auth.churchId)).orderBy(asc(textingProviders.id))).map(masked),
  );

  app.post('/messaging/texting/providers', { config: { access: texting }, schema: { body: batchOf(SaveProvider) } }, async (req) =>
    app.db.transaction(async (tx) => {
      const out = [];
      for (const item of req.body) {
        const { id, apiSecret, ...values } = item;
        const secret = apiSecret && !apiSecret.startsWith(MASK) ? { apiSecret: app.deps.secrets.encrypt(apiSecret) } : {};
        if (values.apiKey?.startsWith(MASK)) delete values.apiKey;
        if (id) {
          const [row] = await tx.update(textingProviders).set({ ...values, ...secret }).where(and(eq(textingProviders.churchId, req.auth.churchId), eq(textingProviders.id, id))).returning();
          if (!row) throw notFound('Texting provider');
          out.push(masked(row));
        } else {
          if (!values.apiKey || !secret.apiSecret) throw badRequest(values.apiKey ? 'apiSecret' : 'apiKey', 'is required for a new provider');
          out.push(masked((await tx.insert(textingProviders).values({ id: randomUUID(), churchId: req.auth.churchId, ...values, ...secret }).returning())[0]!));
        }
      }
      return out;
    }),
  );

  app.delete('/messaging/texting/providers/:id', { config: { access: texting }, schema: { params: IdParams } }, async (req) => {
    const rows = await app.db.delete(textingProviders).where(and(eq(textingProviders.churchId, req.auth.churchId), eq(textingProviders.id, req.params.id))).returning();
    if (!rows.length) throw notFound('Texting provider');
    return {};
  });

  app.get('/messaging/texting/preview/:groupId', { config: { access: texting }, schema: { params: z.object({ groupId: Id }) } }, async (req) =>
    previewGroup(deps(), req.auth.churchId, req.params.groupId),
  );

  app.get('/messaging/texting/sent', { config: { access: texting } }, async (req) =>
    app.db.select().from(sentTexts).where(eq(sentTexts.churchId, req.auth.churchId)).orderBy(desc(sentTexts.timeSent)).limit(500),
  );

  app.get('/messaging/texting/sent/:id/details', { config: { access: texting }, schema: { params: IdParams } }, async (req) => {
    const [text] = await app.db.select().from(sentTexts).where(and(eq(sentTexts.churchId, req.auth.churchId), eq(sentTexts.id, req.params.id)));
    if (!text) throw notFound('Sent text');
    const logs = await app.db.select().from(deliveryLogs).where(and(eq(deliveryLogs.churchId, req.auth.churchId), eq(deliveryLogs.sentTextId, text.id))).orderBy(asc(deliveryLogs.attemptedAt));
    return { ...text, logs };
  });

  app.post('/messaging/texting/send', { config: { access: texting }, schema: { body: z.object({ groupId: Id, message: Message }) } }, async (req) => {
    const members = await contacts(deps(), req.auth.churchId, { groupId: req.body.groupId });
    const { eligible, optedOut, noPhone } = classify(members);
    const result = await queueTexts(
      deps(),
      req.auth.churchId,
      { groupId: req.body.groupId, message: req.body.message, senderPersonId: req.auth.personId, totalMembers: members.length, optedOut, noPhone },
      eligible.map((p) => ({ personId: p.id, phone: p.mobilePhone! })),
    );
    return result;
  });

  app.post(
    '/messaging/texting/sendPerson',
    { config: { access: texting }, schema: { body: z.object({ personId: Id, phoneNumber: z.string().trim().min(7).max(40).optional(), message: Message }) } },
    async (req) => {
      const [person] = await contacts(deps(), req.auth.churchId, { ids: [req.body.personId] });
      if (!person) throw notFound('Person');
      if (person.optedOut) throw badRequest('personId', 'this person opted out of texts');
      const phone = req.body.phoneNumber ?? person.mobilePhone;
      if (!phone || phone.replace(/\D/g, '').length < 8) throw badRequest('phoneNumber', 'the person has no mobile phone');
      return queueTexts(deps(), req.auth.churchId, { recipientPersonId: person.id, message: req.body.message, senderPersonId: req.auth.personId, totalMembers: 1, optedOut: 0, noPhone: 0 }, [{ personId: person.id, phone }]);
    },
  );

  // Twilio calls these with a form body signed by the account's auth token (X-Twilio-Signature).
  const ProviderParams = z.object({ providerId: Id });
  for (const kind of ['inbound', 'status'] as const) {
    webhookIntake(root, {
      path: `/messaging/texting/webhooks/:providerId/${kind}`,
      schema: { params: ProviderParams, hide: true } as never,
      provider: () => 'twilio',
      job: smsWebhook,
      answer: () => ({ type: 'text/xml', body: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>' }),
      async verify(req, raw) {
        const { providerId } = req.params as { providerId: string };
        const [row] = await app.db.select().from(textingProviders).where(eq(textingProviders.id, providerId));
        if (!row?.apiSecret) throw notFound('Texting provider');
        const params = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
        const signature = req.headers['x-twilio-signature'];
        const url = `${deps().config.PUBLIC_BASE_URL.replace(/\/$/, '')}${req.url}`;
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
}
