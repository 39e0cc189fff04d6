import { badRequest, type Actor } from '@church/common';
import { checkFunds } from '../repos/donations';
import { feeSettingsOf, type GatewayRow } from '../repos/gateways';
import type { PaymentProvider } from '../providers/payments';
import { assertOwnPerson } from './access';
import { paymentsFor, type PaymentDeps } from './gateways';
import type { FeeKind } from '../lib/fees';
import { checkGiftAmount, paymentCurrency } from './gifts';

/** What `charge` and `subscribe` (and `create-order`) read from their bodies before they open a gift. */
export interface GiftBody {
  provider?: string;
  gatewayId?: string;
  id?: string;
  paymentMethodId?: string;
  orderId?: string;
  amount: number;
  currency?: string;
  person?: { id?: string | null; email?: string | null; name?: string | null };
  funds: Array<{ id: string; amount: number }>;
}

/** A gift checked and ready for the gateway. */
export interface OpenGift {
  churchId: string;
  personId: string | null;
  email: string | null;
  gateway: GatewayRow;
  provider: PaymentProvider;
  currency: string;
  /** the payment method (or approved order) charged; null: the customer's default */
  methodId: string | null;
  /** the kind of payment, as the gateway holds the method: the fee the donor may cover follows it */
  kind: FeeKind;
  totalCents: number;
  feeCents: number;
  allocations: Array<{ fundId: string; cents: number }>;
}

/**
 * The one opening of a gift (`charge`, `subscribe`, `create-order`): who gives (another person's gift needs
 * Donations.Edit), the church's gateway, the funds (the church's own), the currency (the gateway's), the kind of
 * payment as the gateway holds the method (a card cannot claim the bank fee), and the amount (the funds, or the
 * funds and the covered fee).
 */
export async function openGift(deps: PaymentDeps, actor: Actor, body: GiftBody, opts: { requireMethod: boolean; checkout?: boolean }): Promise<OpenGift> {
  const churchId = actor.churchId;
  if (body.person?.id) assertOwnPerson(actor, 'Donations.Edit', body.person.id);
  const personId = body.person?.id?.toLowerCase() ?? actor.personId ?? null;
  const { gateway, provider } = await paymentsFor(deps, churchId, { gatewayId: body.gatewayId, provider: body.provider });
  await checkFunds(deps.db, churchId, body.funds.map((f) => f.id), (i) => `funds[${i}].id`);
  const currency = paymentCurrency(body.currency, gateway.currency);
  const paypal = gateway.provider === 'paypal';
  const methodId = (paypal ? (body.orderId ?? body.id) : (body.paymentMethodId ?? body.id)) || null;
  if (opts.requireMethod && !methodId && !opts.checkout) throw badRequest(paypal ? 'orderId' : 'id', 'is required: the payment method (or approved order) to charge');
  const kind: FeeKind = paypal ? 'paypal' : methodId ? await provider.methodKind(methodId) : 'card';
  const gift = checkGiftAmount({ amount: body.amount, funds: body.funds, kind, currency, settings: feeSettingsOf(gateway) });
  return {
    churchId,
    personId,
    email: body.person?.email ?? actor.email ?? null,
    gateway,
    provider,
    currency,
    methodId,
    kind,
    totalCents: gift.totalCents,
    feeCents: gift.feeCents,
    allocations: body.funds.map((f, i) => ({ fundId: f.id.toLowerCase(), cents: gift.fundCents[i]! })),
  };
}

/**
 * `billing_cycle_anchor` as seconds: the donation forms send milliseconds (`+new Date()`: the moment the form
 * opened, or a chosen day's midnight), older clients seconds. Up to a day in the past means "start now" (null);
 * earlier is refused; later is the first period's start.
 */
export function billingAnchor(value: number | null | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const seconds = value >= 1e11 ? Math.floor(value / 1000) : value;
  const nowSeconds = Math.floor(now / 1000);
  if (seconds < nowSeconds - 86_400) throw badRequest('billing_cycle_anchor', 'must not be in the past');
  if (seconds > nowSeconds + 5 * 366 * 86_400) throw badRequest('billing_cycle_anchor', 'must be within five years');
  return seconds > nowSeconds ? seconds : null;
}
