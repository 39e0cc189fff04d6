import { and, asc, eq, isNotNull } from 'drizzle-orm';
import type { GivingDeps } from '../deps';
import { gateways } from '../db/schema';
import type { GatewayKeys, PaymentProvider, ProviderName } from '../providers/payments';

// No value import of `../app` here: jobs import this file, and the app imports the jobs.

/** The decrypted keys of a gateway, with the secret box at hand (routes pass `app.deps.secrets`, jobs theirs). */
export function gatewayKeys(secrets: { decrypt(sealed: string): string }, row: typeof gateways.$inferSelect): GatewayKeys {
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

/** The adapter of the church's gateway of `provider`, for a job; none configured: null. */
export async function providerOfChurch(deps: GivingDeps, churchId: string, provider: string): Promise<PaymentProvider | null> {
  const [row] = await deps.db
    .select()
    .from(gateways)
    .where(and(eq(gateways.churchId, churchId), eq(gateways.provider, provider), isNotNull(gateways.privateKey)))
    .orderBy(asc(gateways.createdAt))
    .limit(1);
  return row ? deps.providers.payments.forGateway(gatewayKeys(deps.secrets, row)) : null;
}
