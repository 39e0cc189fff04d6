import { randomUUID } from 'node:crypto';
import { and, asc, eq, getTableColumns, isNotNull, sql } from 'drizzle-orm';
import { notConfigured, notFound, preparedReader, type DbOrTx } from '@church/common';
import { gateways } from '../db/schema';
import type { FeeSettings } from '../lib/fees';

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

/** The church's first gateway of `provider` with a private key (a job's provider); undefined when none. */
export async function firstGatewayOf(db: DbOrTx, churchId: string, provider: string): Promise<GatewayRow | undefined> {
  const [row] = await db
    .select()
    .from(gateways)
    .where(and(eq(gateways.churchId, churchId), eq(gateways.provider, provider), isNotNull(gateways.privateKey)))
    .orderBy(asc(gateways.createdAt))
    .limit(1);
  return row;
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
