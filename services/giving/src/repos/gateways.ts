import { randomUUID } from 'node:crypto';
import { and, asc, eq, getTableColumns, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { keptPer, notConfigured, notFound, preparedReader, type DbOrTx } from '@church/common';
import { givingDeps } from '../deps';
import { gatewayKeys } from './gateway-keys';
import { gateways } from '../db/schema';
import type { FeeSettings } from '../domain/fees';
import type { GatewayKeys, PaymentProvider, ProviderEvent } from '../providers/payments';

export type GatewayRow = typeof gateways.$inferSelect;

/** A gateway's secret as it leaves any route: masked, with the last four characters. */
export function mask(sealed: string | null, open: (s: string) => string): string | null {
  if (!sealed) return null;
  try {
    const plain = open(sealed);
    return `••••${plain.slice(-4)}`;
  } catch {
    return '••••';
  }
}

/** A gateway as the public reads answer it: no secret, no webhook. */
export const publicGateway = (row: GatewayRow) => ({ id: row.id, provider: row.provider, publicKey: row.publicKey, payFees: row.payFees, currency: row.currency });

const gatewayColumns = getTableColumns(gateways);
// Read on every webhook delivery and payment: rendered once.
const readGateways = preparedReader(gatewayColumns, (qb) =>
  qb
    .select(gatewayColumns)
    .from(gateways)
    .where(eq(gateways.churchId, sql`${sql.placeholder('churchId')}::uuid`))
    .orderBy(asc(gateways.createdAt)),
);

export async function churchGateways(db: DbOrTx, churchId: string): Promise<GatewayRow[]> {
  return (await readGateways(db, { churchId })) as GatewayRow[];
}

/**
 * The church's gateway for a payment: by id, by provider, or the first one (Stripe before PayPal when both
 * exist and nothing names one). None: 400 saying the church has not configured one.
 */
export async function findGateway(db: DbOrTx, churchId: string, opts: { gatewayId?: string | null; provider?: string | null } = {}): Promise<GatewayRow> {
  const rows = await churchGateways(db, churchId);
  let row: GatewayRow | undefined;
  if (opts.gatewayId) {
    row = rows.find((g) => g.id === opts.gatewayId);
    if (!row) throw notFound('Gateway');
  } else if (opts.provider) row = rows.find((g) => g.provider === opts.provider);
  else row = rows.find((g) => g.provider === 'stripe') ?? rows[0];
  if (!row || !row.privateKey) throw notConfigured(`A ${opts.provider ?? 'payment'} gateway for this church`, 'gateway (POST /giving/gateways)');
  return row;
}

/** The decrypted keys of a gateway, for one call. */
export function keysOf(app: FastifyInstance, row: GatewayRow): GatewayKeys {
  return gatewayKeys(app.deps.secrets, row);
}

/** The provider adapter of a church's gateway. */
export async function paymentsFor(app: FastifyInstance, churchId: string, opts: { gatewayId?: string | null; provider?: string | null } = {}): Promise<{ gateway: GatewayRow; provider: PaymentProvider }> {
  const gateway = await findGateway(app.db, churchId, opts);
  return { gateway, provider: givingDeps(app).providers.payments.forGateway(keysOf(app, gateway)) };
}

/** How long a church's webhook verifier is reused before its gateway is read again. */
const VERIFIER_MS = 5_000;
const verifiers = keptPer<FastifyInstance, { gateway: GatewayRow; provider: PaymentProvider }>({ max: 10_000, ttl: VERIFIER_MS });
/** What verifying depends on: the sealed secrets and ids (a changed gateway seals its secrets anew). */
const verifiedBy = (g: GatewayRow) => `${g.id}\n${g.privateKey}\n${g.webhookKey}\n${g.webhookId}\n${g.publicKey}`;

/**
 * Verifies a webhook delivery against the church's gateway of `provider`, which is read (and its secrets
 * opened) once per church and five seconds in this process: a burst of deliveries, hundreds a second, would
 * otherwise read it for every one. A delivery the kept gateway refuses is checked against the gateway as it is
 * now, so a new secret holds at once; a removed gateway goes on verifying for at most five seconds.
 */
export async function verifyWebhook(app: FastifyInstance, churchId: string, provider: string, req: FastifyRequest, raw: Buffer): Promise<ProviderEvent> {
  const kept = verifiers(app);
  const key = `${churchId}\n${provider}`;
  const entry = kept.get(key);
  if (entry) {
    try {
      return await entry.provider.verifyWebhook(req, raw);
    } catch (err) {
      const current = await findGateway(app.db, churchId, { provider });
      if (verifiedBy(current) === verifiedBy(entry.gateway)) throw err;
      kept.delete(key);
    }
  }
  const fresh = await paymentsFor(app, churchId, { provider });
  kept.set(key, fresh);
  return fresh.provider.verifyWebhook(req, raw);
}

export const feeSettingsOf = (row: GatewayRow | undefined | null): FeeSettings => (row?.feeSettings ?? {}) as FeeSettings;

/** Saves a gateway: the existing one updated, or a new one; answers the row. */
export async function writeGateway(db: DbOrTx, churchId: string, existing: GatewayRow | undefined, values: Partial<GatewayRow> & { provider: string }): Promise<GatewayRow> {
  if (existing) {
    const [row] = await db
      .update(gateways)
      .set({ ...values, updatedAt: new Date() })
      .where(and(eq(gateways.churchId, churchId), eq(gateways.id, existing.id)))
      .returning();
    return row!;
  }
  const [row] = await db
    .insert(gateways)
    .values({ ...values, id: randomUUID(), churchId })
    .returning();
  return row!;
}

/** Removes a gateway of the church. */
export async function deleteGateway(db: DbOrTx, churchId: string, id: string): Promise<void> {
  await db.delete(gateways).where(and(eq(gateways.churchId, churchId), eq(gateways.id, id)));
}
