import type { IncomingHttpHeaders } from 'node:http';

/**
 * A payment gateway as routes and jobs see it: one interface, one adapter per provider (`stripe.ts` on the
 * `stripe` SDK, `paypal.ts` on `@paypal/paypal-server-sdk`), chosen by the gateway's `provider` value. Amounts
 * cross this interface as integer cents. Adapters throw HttpErrors: 402 for a declined payment, 400 for what
 * the caller can fix, 502 (`providerFailed`) for outages, timeouts and unexpected answers.
 */
export type ProviderName = 'stripe' | 'paypal';
export const PROVIDERS: readonly ProviderName[] = ['stripe', 'paypal'];

/** The keys of a church's gateway, decrypted for one call. */
export interface GatewayKeys {
  /**
   * the saved gateway's id and version (`<id>@<updatedAt>`): what an adapter is kept under while the process runs
   * (never the keys themselves); absent for a gateway not saved yet, whose adapter is not kept
   */
  version?: string;
  provider: ProviderName;
  publicKey: string | null;
  privateKey: string;
  webhookKey: string | null;
  webhookId?: string | null;
  productId?: string | null;
}

export interface PaymentResult {
  /** the provider's transaction id (PaymentIntent, order capture) */
  id: string;
  /** `complete` (money moved), `pending` (bank debit under way, or awaiting the payer), `failed` */
  status: 'complete' | 'pending' | 'failed';
  /** the provider's own status word, answered to clients (`succeeded`, `processing`, `COMPLETED`) */
  providerStatus: string;
  method: string;
  methodDetails?: string | null;
  amountCents?: number;
  currency?: string;
  metadata?: Record<string, string>;
  customerId?: string | null;
  /** a payment that needs the payer's action (3-D Secure): the client finishes it with this */
  clientSecret?: string | null;
}

export interface ChargeInput {
  amountCents: number;
  currency: string;
  customerId?: string | null;
  paymentMethodId?: string | null;
  /** `card` or `bank` */
  type: string;
  description: string;
  email?: string | null;
  metadata: Record<string, string>;
  idempotencyKey?: string;
}

export interface SubscribeInput {
  customerId: string;
  paymentMethodId?: string | null;
  amountCents: number;
  currency: string;
  interval: string;
  intervalCount: number;
  billingCycleAnchor?: number | null;
  productId?: string | null;
  description: string;
  metadata: Record<string, string>;
  idempotencyKey?: string;
}

export interface ProviderSubscription {
  id: string;
  status: string;
  amountCents: number | null;
  currency: string | null;
  interval: string | null;
  intervalCount: number | null;
  customerId: string | null;
  currentPeriodEnd: number | null;
  /** seconds since the epoch */
  billingCycleAnchor: number | null;
  /** the card (or bank account) it is paid with */
  defaultPaymentMethod: string | null;
  defaultSource: string | null;
}

export interface MethodInfo {
  id: string;
  type: 'card' | 'bank';
  brand?: string | null;
  last4?: string | null;
  expMonth?: number | null;
  expYear?: number | null;
  bankName?: string | null;
  status: 'verified' | 'pending';
}

/** A verified provider event, as received or as listed for a replay. */
export interface ProviderEvent {
  id: string;
  type: string;
  /** seconds since the epoch */
  created: number;
  payload: unknown;
}

/** What an event means for the books, whatever the provider (`webhookEffects.ts` applies it). */
export type EventEffect =
  | { kind: 'payment'; status: 'complete' | 'pending' | 'failed'; transactionId: string; amountCents: number; currency: string; method: string; methodDetails?: string | null; metadata: Record<string, string>; customerId?: string | null; at: Date }
  | { kind: 'invoice'; providerSubscriptionId: string; transactionId: string; amountCents: number; currency: string; at: Date }
  | { kind: 'subscriptionCancelled'; providerSubscriptionId: string }
  | {
      kind: 'refund';
      /** the refunded payment's id (Stripe: the charge's PaymentIntent, else the charge) */
      transactionId: string;
      refundedCents: number;
      amountCents: number;
      /**
       * the invoices the refunded payment paid, when no donation carries its own id: a subscription period's
       * donation is kept under its invoice id (added by the webhook job, `invoicesOfPayment`)
       */
      invoiceIds?: string[];
    }
  | { kind: 'ignored'; reason: string };

export interface PaymentProvider {
  readonly name: ProviderName;
  clientToken(input: { amountCents?: number; currency: string; customerId?: string | null }): Promise<Record<string, unknown>>;
  createOrder(input: { amountCents: number; currency: string; description: string; metadata: Record<string, string>; idempotencyKey?: string }): Promise<{ id: string; status: string }>;
  createCustomer(input: { email?: string | null; name?: string | null; personId?: string | null; idempotencyKey?: string }): Promise<string>;
  charge(input: ChargeInput): Promise<PaymentResult>;
  /** a payment as the provider holds it (for `POST /donate/log`, which records only what the provider confirms) */
  retrievePayment(id: string): Promise<PaymentResult>;
  subscribe(input: SubscribeInput): Promise<{ id: string; status: string }>;
  updateSubscription(id: string, input: { amountCents?: number; currency?: string; interval?: string; intervalCount?: number; paymentMethodId?: string | null; productId?: string | null }): Promise<{ id: string; status: string }>;
  cancelSubscription(id: string, reason?: string | null): Promise<void>;
  listSubscriptions(customerId: string): Promise<ProviderSubscription[]>;
  /** whether a stored method is a card or a bank account, as the provider holds it (the fee a payment may cover follows it) */
  methodKind(paymentMethodId: string): Promise<'card' | 'bank'>;
  attachCard(paymentMethodId: string, customerId: string): Promise<MethodInfo>;
  updateCard(paymentMethodId: string, card: { expMonth?: number; expYear?: number; name?: string | null }): Promise<MethodInfo>;
  setupIntent(input: { customerId?: string | null; email?: string | null; name?: string | null }): Promise<{ id: string; clientSecret: string | null; customerId: string | null }>;
  addBankAccount(token: string, customerId: string): Promise<MethodInfo>;
  updateBank(id: string, customerId: string, bank: { accountHolderName?: string | null; accountHolderType?: string | null }): Promise<MethodInfo>;
  verifyBank(id: string, customerId: string, amounts: number[] | null, descriptorCode?: string | null): Promise<MethodInfo>;
  detach(paymentMethodId: string, customerId: string): Promise<void>;
  provisionWebhook(url: string): Promise<{ id: string; secret: string | null }>;
  deleteWebhook(id: string): Promise<void>;
  createProduct(name: string): Promise<string>;
  /** checks the signature (in the delivery's headers) over the raw bytes (400 when missing or wrong) and answers the event */
  verifyWebhook(headers: IncomingHttpHeaders, raw: Buffer): Promise<ProviderEvent>;
  interpret(event: ProviderEvent): EventEffect;
  /**
   * The invoices a payment paid (Stripe: the InvoicePayments of a PaymentIntent), so a refund of a
   * subscription period's payment finds the donation recorded under the invoice id. Absent: the provider's
   * refunds name the recorded transaction themselves.
   */
  invoicesOfPayment?(paymentId: string): Promise<string[]>;
  listEvents(from: Date, to: Date): Promise<ProviderEvent[]>;
}

export interface PaymentProviders {
  /** the adapter of a church's gateway */
  forGateway(keys: GatewayKeys): PaymentProvider;
}
