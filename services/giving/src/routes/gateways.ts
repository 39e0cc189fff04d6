import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { badRequest, batchOf, Empty, getRow, Id, IdParams, itemParam, reportChanges, type ZodTypeProvider } from '@church/common';
import { givingDeps } from '../deps';
import { gateways } from '../db/schema';
import { churchGateways, deleteGateway, keysOf, mask, publicGateway, writeGateway, type GatewayRow } from '../repos/gateways';
import type { ProviderName } from '../providers/payments';
import { Gateway, GatewaySave, PublicGateway } from '../schemas';

type Save = z.output<typeof GatewaySave>;

/** A gateway as the JWT routes answer it: secrets masked. */
export function gatewayItem(app: FastifyInstance, row: GatewayRow) {
  const open = (s: string) => app.deps.secrets.decrypt(s);
  return {
    id: row.id,
    provider: row.provider,
    publicKey: row.publicKey,
    privateKey: mask(row.privateKey, open),
    webhookKey: mask(row.webhookKey, open),
    webhookId: row.webhookId,
    productId: row.productId,
    payFees: row.payFees,
    currency: row.currency,
    feeSettings: (row.feeSettings ?? {}) as Record<string, unknown>,
  };
}


/** A value the client read back masked means "keep what is stored". */
const isMasked = (v: string | null | undefined) => typeof v === 'string' && v.startsWith('••••');

/**
 * Saves one gateway: secrets sealed with AES-256-GCM; when the private key is new (or no webhook is known) and
 * a public base URL is configured, the webhook endpoint is provisioned at the provider pointing at this
 * church's webhook URL (its signing secret kept), and the product for recurring gifts is created. A body that
 * carries `webhookKey` (a webhook set up by hand) is saved as given. Provider calls come first: when they fail
 * nothing is saved.
 */
async function saveGateway(app: FastifyInstance, req: FastifyRequest, churchId: string, input: Save, existing: GatewayRow | undefined, i: number): Promise<GatewayRow> {
  const deps = givingDeps(app);
  const provider = (input.provider ?? existing?.provider) as ProviderName | undefined;
  if (!provider) throw badRequest(itemParam(req, i, 'provider'), 'is required');
  if (existing && input.provider && input.provider !== existing.provider) throw badRequest(itemParam(req, i, 'provider'), 'cannot change; delete the gateway and add another');
  const newPrivate = input.privateKey && !isMasked(input.privateKey) ? input.privateKey : null;
  if (!existing && !newPrivate) throw badRequest(itemParam(req, i, 'privateKey'), 'is required');
  if (provider === 'paypal' && !existing && !input.publicKey) throw badRequest(itemParam(req, i, 'publicKey'), 'is required (the PayPal client id)');
  const seal = (v: string) => app.deps.secrets.encrypt(v);
  const handWebhookKey = input.webhookKey && !isMasked(input.webhookKey) ? input.webhookKey : null;

  const values: Partial<GatewayRow> = {
    provider,
    ...(input.publicKey !== undefined ? { publicKey: input.publicKey ?? null } : {}),
    ...(newPrivate ? { privateKey: seal(newPrivate) } : {}),
    ...(handWebhookKey ? { webhookKey: seal(handWebhookKey) } : input.webhookKey === null ? { webhookKey: null } : {}),
    ...(input.webhookId !== undefined ? { webhookId: input.webhookId ?? null } : {}),
    ...(input.productId !== undefined ? { productId: input.productId ?? null } : {}),
    ...(input.payFees !== undefined ? { payFees: input.payFees } : {}),
    ...(input.currency ? { currency: input.currency } : {}),
    ...(input.feeSettings ? { feeSettings: input.feeSettings } : {}),
  };

  const merged = { ...existing, ...values } as GatewayRow;
  // The keys being saved, not yet a saved version: an adapter of its own, not kept.
  const adapter = deps.providers.payments.forGateway({ ...keysOf(app, merged), version: undefined });
  const base = deps.config.GIVING_PUBLIC_URL?.replace(/\/+$/, '');
  const keyChanged = !!newPrivate && (!existing || newPrivate !== keysOf(app, existing).privateKey);
  // Nothing is provisioned without a public base URL, nor for a webhook set up by hand: the gateway is then saved
  // as given (subscriptions name their product inline, see the README).
  // Stripe: a webhook when no signing secret is known, or the key changed on a gateway whose webhook this service
  // made; the product with a new key. PayPal verifies deliveries by the webhook's id, so a body carrying
  // `webhookId` is the hand-made case; otherwise a gateway with no known webhook gets one, and the product once.
  const byHand = provider === 'stripe' ? !!handWebhookKey : input.webhookId !== undefined;
  const makeHook = !!base && !byHand && (provider === 'stripe' ? !merged.webhookKey || (keyChanged && (!existing || !!existing.webhookId)) : !merged.webhookId);
  const makeProduct = !!base && !byHand && !merged.productId && input.productId === undefined && (provider !== 'stripe' || keyChanged || !existing);
  if (makeHook) {
    const hook = await adapter.provisionWebhook(`${base}/giving/donate/webhook/${provider}?churchId=${churchId}`);
    values.webhookId = hook.id;
    if (hook.secret) values.webhookKey = seal(hook.secret);
    // The old endpoint (of the previous key) stops receiving; remove it where the old key still works.
    if (existing?.webhookId && existing.privateKey && !keyChanged) await adapter.deleteWebhook(existing.webhookId).catch(() => undefined);
  }
  if (makeProduct) values.productId = await adapter.createProduct('Recurring donation');

  return app.db.transaction(async (tx) => {
    const row = await writeGateway(tx, churchId, existing, { ...values, provider });
    await reportChanges(app.deps, [{ churchId, entityType: 'gateway', entityId: row.id, action: existing ? 'updated' : 'created', before: existing, after: row }], { req, tx });
    return row;
  });
}

/** `/giving/gateways`: a church's payment gateways; secrets sealed at rest and masked on every read. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/giving/gateways', { config: { access: anyUser }, schema: { response: { 200: z.array(Gateway) } } }, async (req) =>
    (await churchGateways(app.db, req.auth.churchId)).map((g) => gatewayItem(app, g)),
  );

  app.get('/giving/gateways/churchId/:churchId', { config: { access: 'public' }, schema: { params: z.object({ churchId: Id }), response: { 200: z.array(PublicGateway) } } }, async (req) =>
    (await churchGateways(app.db, req.params.churchId)).filter((g) => g.privateKey).map(publicGateway),
  );

  app.get(
    '/giving/gateways/configured/:churchId',
    { config: { access: 'public' }, schema: { params: z.object({ churchId: Id }), response: { 200: z.object({ configured: z.boolean() }) } } },
    async (req) => ({ configured: (await churchGateways(app.db, req.params.churchId)).some((g) => !!g.privateKey) }),
  );

  app.get('/giving/gateways/:id', { config: { access: requires('Settings.Edit') }, schema: { params: IdParams, response: { 200: Gateway } } }, async (req) => {
    const row = await getRow(app.db, gateways, req.auth.churchId, req.params.id, 'Gateway');
    return gatewayItem(app, row);
  });

  app.post('/giving/gateways', { config: { access: requires('Settings.Edit') }, schema: { body: batchOf(GatewaySave), response: { 200: z.array(Gateway) } } }, async (req) => {
    const churchId = req.auth.churchId;
    const out: GatewayRow[] = [];
    for (const [i, item] of req.body.entries()) {
      let existing: GatewayRow | undefined;
      if (item.id) {
        existing = await getRow(app.db, gateways, churchId, item.id, 'Gateway');
      } else if (item.provider) {
        // One gateway per provider and church: saving another of the same provider updates it.
        existing = (await churchGateways(app.db, churchId)).find((g) => g.provider === item.provider);
      }
      out.push(await saveGateway(app, req, churchId, item, existing, i));
    }
    return out.map((g) => gatewayItem(app, g));
  });

  app.patch('/giving/gateways/:id', { config: { access: requires('Settings.Edit') }, schema: { params: IdParams, body: GatewaySave.omit({ id: true }), response: { 200: Gateway } } }, async (req) => {
    const existing = await getRow(app.db, gateways, req.auth.churchId, req.params.id, 'Gateway');
    return gatewayItem(app, await saveGateway(app, req, req.auth.churchId, req.body, existing, 0));
  });

  app.delete('/giving/gateways/:id', { config: { access: requires('Settings.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const existing = await getRow(app.db, gateways, req.auth.churchId, req.params.id, 'Gateway');
    if (existing.webhookId && existing.privateKey) {
      await givingDeps(app).providers.payments.forGateway(keysOf(app, existing)).deleteWebhook(existing.webhookId);
    }
    await app.db.transaction(async (tx) => {
      await deleteGateway(tx, req.auth.churchId, existing.id);
      await reportChanges(app.deps, [{ churchId: req.auth.churchId, entityType: 'gateway', entityId: existing.id, action: 'destroyed', before: existing }], { req, tx });
    });
    return {};
  });
}
