import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import { badRequest, getRow, keptPer, reportChanges, type Actor } from '@church/common';
import { gateways } from '../db/schema';
import type { GivingDeps } from '../deps';
import type { ItemParam } from '../lib/params';
import type { GatewayKeys, PaymentProvider, PaymentProviders, ProviderEvent, ProviderName } from '../providers/payments';
import { churchGateways, deleteGateway, findGateway, firstGatewayOf, mask, writeGateway, type GatewayRow } from '../repos/gateways';
import type { GatewaySave } from '../schemas';

/** What finding a church's payment adapter uses: the database, the secret box and the providers. */
export type PaymentDeps = Pick<GivingDeps, 'db' | 'secrets' | 'providers'>;
/** What saving gateways uses: that, the public base URL, and the audit log's queue. */
export type GatewayDeps = PaymentDeps & Pick<GivingDeps, 'config' | 'queue' | 'module'>;
type Save = z.output<typeof GatewaySave>;

/** The decrypted keys of a gateway, for one call (routes and jobs pass their deps' secret box). */
export function gatewayKeys(secrets: { decrypt(sealed: string): string }, row: GatewayRow): GatewayKeys {
  const open = (s: string | null) => (s ? secrets.decrypt(s) : null);
  return {
    ...(row.id && row.updatedAt ? { version: `${row.id}@${row.updatedAt.getTime()}` } : {}),
    provider: row.provider as ProviderName,
    publicKey: row.publicKey,
    privateKey: open(row.privateKey) ?? '',
    webhookKey: open(row.webhookKey),
    webhookId: row.webhookId,
    productId: row.productId,
  };
}

/** The provider adapter of a church's gateway (by id, by provider, or the first: `findGateway`). */
export async function paymentsFor(deps: PaymentDeps, churchId: string, opts: { gatewayId?: string | null; provider?: string | null } = {}): Promise<{ gateway: GatewayRow; provider: PaymentProvider }> {
  const gateway = await findGateway(deps.db, churchId, opts);
  return { gateway, provider: deps.providers.payments.forGateway(gatewayKeys(deps.secrets, gateway)) };
}

/** The adapter of the church's gateway of `provider`, for a job; none configured: null. */
export async function providerOfChurch(deps: PaymentDeps, churchId: string, provider: string): Promise<PaymentProvider | null> {
  const row = await firstGatewayOf(deps.db, churchId, provider);
  return row ? deps.providers.payments.forGateway(gatewayKeys(deps.secrets, row)) : null;
}

/** How long a church's webhook verifier is reused before its gateway is read again. */
const VERIFIER_MS = 5_000;
/** Kept per app (its providers object): tests build several in one process. */
const verifiers = keptPer<PaymentProviders, { gateway: GatewayRow; provider: PaymentProvider }>({ max: 10_000, ttl: VERIFIER_MS });
/** What verifying depends on: the sealed secrets and ids (a changed gateway seals its secrets anew). */
const verifiedBy = (g: GatewayRow) => `${g.id}\n${g.privateKey}\n${g.webhookKey}\n${g.webhookId}\n${g.publicKey}`;

/**
 * Verifies a webhook delivery (its headers and raw bytes) against the church's gateway of `provider`, which is
 * read (and its secrets opened) once per church and five seconds in this process: a burst of deliveries,
 * hundreds a second, would otherwise read it for every one. A delivery the kept gateway refuses is checked
 * against the gateway as it is now, so a new secret holds at once; a removed gateway goes on verifying for at
 * most five seconds.
 */
export async function verifyWebhook(deps: PaymentDeps, churchId: string, provider: string, headers: IncomingHttpHeaders, raw: Buffer): Promise<ProviderEvent> {
  const kept = verifiers(deps.providers.payments);
  const key = `${churchId}\n${provider}`;
  const entry = kept.get(key);
  if (entry) {
    try {
      return await entry.provider.verifyWebhook(headers, raw);
    } catch (err) {
      const current = await findGateway(deps.db, churchId, { provider });
      if (verifiedBy(current) === verifiedBy(entry.gateway)) throw err;
      kept.delete(key);
    }
  }
  const fresh = await paymentsFor(deps, churchId, { provider });
  kept.set(key, fresh);
  return fresh.provider.verifyWebhook(headers, raw);
}

/** A gateway as the JWT routes answer it: secrets masked. */
export function gatewayItem(secrets: { decrypt(sealed: string): string }, row: GatewayRow) {
  const open = (s: string) => secrets.decrypt(s);
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
async function saveGateway(deps: GatewayDeps, actor: Actor, input: Save, existing: GatewayRow | undefined, param: (field: string) => string): Promise<GatewayRow> {
  const churchId = actor.churchId;
  const provider = (input.provider ?? existing?.provider) as ProviderName | undefined;
  if (!provider) throw badRequest(param('provider'), 'is required');
  if (existing && input.provider && input.provider !== existing.provider) throw badRequest(param('provider'), 'cannot change; delete the gateway and add another');
  const newPrivate = input.privateKey && !isMasked(input.privateKey) ? input.privateKey : null;
  if (!existing && !newPrivate) throw badRequest(param('privateKey'), 'is required');
  if (provider === 'paypal' && !existing && !input.publicKey) throw badRequest(param('publicKey'), 'is required (the PayPal client id)');
  const seal = (v: string) => deps.secrets.encrypt(v);
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
  const adapter = deps.providers.payments.forGateway({ ...gatewayKeys(deps.secrets, merged), version: undefined });
  const base = deps.config.GIVING_PUBLIC_URL?.replace(/\/+$/, '');
  const keyChanged = !!newPrivate && (!existing || newPrivate !== gatewayKeys(deps.secrets, existing).privateKey);
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

  return deps.db.transaction(async (tx) => {
    const row = await writeGateway(tx, churchId, existing, { ...values, provider });
    await reportChanges(deps, [{ churchId, entityType: 'gateway', entityId: row.id, action: existing ? 'updated' : 'created', before: existing, after: row }], { req: actor, tx });
    return row;
  });
}

/**
 * `POST /gateways`, each item in order: by id (the church's, else 404), or by provider (one gateway per provider
 * and church: saving another of the same provider updates it), then `saveGateway`.
 */
export async function saveGateways(deps: GatewayDeps, actor: Actor, items: Save[], at: ItemParam): Promise<GatewayRow[]> {
  const churchId = actor.churchId;
  const out: GatewayRow[] = [];
  for (const [i, item] of items.entries()) {
    let existing: GatewayRow | undefined;
    if (item.id) {
      existing = await getRow(deps.db, gateways, churchId, item.id, 'Gateway');
    } else if (item.provider) {
      existing = (await churchGateways(deps.db, churchId)).find((g) => g.provider === item.provider);
    }
    out.push(await saveGateway(deps, actor, item, existing, (field) => at(i, field)));
  }
  return out;
}

/** `PATCH /gateways/:id`: one gateway of the church changed (`saveGateway`); 404 when not the church's. */
export async function patchGateway(deps: GatewayDeps, actor: Actor, id: string, input: Save): Promise<GatewayRow> {
  const existing = await getRow(deps.db, gateways, actor.churchId, id, 'Gateway');
  return saveGateway(deps, actor, input, existing, (field) => field);
}

/** `DELETE /gateways/:id`: its webhook removed at the provider (when this service made one), then the gateway. */
export async function removeGateway(deps: GatewayDeps, actor: Actor, id: string): Promise<void> {
  const existing = await getRow(deps.db, gateways, actor.churchId, id, 'Gateway');
  if (existing.webhookId && existing.privateKey) {
    await deps.providers.payments.forGateway(gatewayKeys(deps.secrets, existing)).deleteWebhook(existing.webhookId);
  }
  await deps.db.transaction(async (tx) => {
    await deleteGateway(tx, actor.churchId, existing.id);
    await reportChanges(deps, [{ churchId: actor.churchId, entityType: 'gateway', entityId: existing.id, action: 'destroyed', before: existing }], { req: actor, tx });
  });
}
