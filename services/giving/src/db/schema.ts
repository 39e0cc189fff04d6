import { sql } from 'drizzle-orm';
import { boolean, date, index, integer, jsonb, numeric, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id, removed, timestamps } from '@church/common';

// The giving module's tables. Money is numeric(12,2) everywhere (drizzle hands it over as a string; the code
// works in integer cents, see lib/money.ts). Every index that serves a query leads with church_id.

export { webhookEvents } from '@church/common/tables';
/**
 * A church's data version (snapshots in @church/common), raised at commit by the triggers of migration 0009 on the
 * tables the kept campaign answers read: campaigns, pledges and campaign_gift_totals.
 */
export { dataVersions } from '@church/common/tables';

const money = (name: string) => numeric(name, { precision: 12, scale: 2 });

/** Donation batches: a deposit, a Sunday's envelopes, or the batch online gifts land in. */
export const donationBatches = pgTable(
  'donation_batches',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    batchDate: at('batch_date'),
    ...timestamps(),
  },
  (t) => [index('donation_batches_church_date_idx').on(t.churchId, t.batchDate)],
);

/** Funds (soft delete: donations keep their allocations to a retired fund). */
export const funds = pgTable(
  'funds',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    taxDeductible: boolean('tax_deductible').notNull().default(true),
    visible: boolean('visible').notNull().default(true),
    /** the provider's product of this fund, where one was provisioned */
    productId: text('product_id'),
    removed: removed(),
    ...timestamps(),
  },
  (t) => [index('funds_church_name_idx').on(t.churchId, t.name)],
);

/**
 * A donation whose text fits in an index entry with its other columns (bytes; the fixed-size columns take
 * under 200): the predicate of `donations_church_person_list_idx`, and the readers' split between it and
 * `donations_church_person_long_idx`. The readers repeat it word for word so the planner proves the index's.
 */
export const SHORT_DONATION =
  'coalesce(octet_length(method), 0) + coalesce(octet_length(method_details), 0) + coalesce(octet_length(notes), 0) + coalesce(octet_length(transaction_id), 0) + coalesce(octet_length(provider), 0) + octet_length(currency) + octet_length(status) <= 2000';

/**
 * Donations. A gateway donation is recognised by its provider transaction id, unique per church: a webhook, a
 * retried charge and a replay all land on the same row.
 */
export const donations = pgTable(
  'donations',
  {
    id: id(),
    churchId: churchId(),
    batchId: uuid('batch_id'),
    personId: uuid('person_id'),
    donationDate: at('donation_date').notNull().defaultNow(),
    amount: money('amount').notNull(),
    currency: text('currency').notNull().default('usd'),
    /** `card`, `ach`, `check`, `cash`, `paypal` ... as the church records it */
    method: text('method'),
    /** last digits of the card, check number ... */
    methodDetails: text('method_details'),
    notes: text('notes'),
    /** `complete`, `pending` (bank debit under way), `failed`, `refunded` */
    status: text('status').notNull().default('complete'),
    transactionId: text('transaction_id'),
    provider: text('provider'),
    /** the transaction fee the donor covered (included in amount) */
    fee: money('fee').notNull().default('0'),
    refundedAmount: money('refunded_amount').notNull().default('0'),
    /** the local subscription a recurring gift came from */
    subscriptionId: uuid('subscription_id'),
    /** where the receipt goes when the donor is not a known person (guest gifts) */
    email: text('email'),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('donations_church_transaction_idx').on(t.churchId, t.transactionId),
    index('donations_church_date_idx').on(t.churchId, t.donationDate),
    // A person's gifts, as their list reads them (`listDonations`): the answered columns ride in the index
    // (INCLUDE, added by hand in migration 0003), so the list is an index-only scan of one or two leaf pages
    // instead of a heap page per gift (gifts are inserted week by week). A btree entry must stay under 2,704
    // bytes, so the rare gift with long text (notes, method details) is left to the second index.
    index('donations_church_person_list_idx').on(t.churchId, t.personId, t.donationDate).where(sql.raw(`person_id is not null and ${SHORT_DONATION}`)),
    index('donations_church_person_long_idx').on(t.churchId, t.personId, t.donationDate).where(sql.raw(`person_id is not null and not (${SHORT_DONATION})`)),
    index('donations_church_batch_idx').on(t.churchId, t.batchId),
    // who gave in a date range (membership's saved lists, `givingInternal.donors`): an index-only range of the
    // church's complete gifts of known people, with the person in the key
    index('donations_church_complete_date_idx').on(t.churchId, t.donationDate, t.personId).where(sql`status = 'complete' and person_id is not null`),
  ],
);

/** A donation's allocation to a fund; the allocations may sum below the amount when the donor covered fees. */
export const fundDonations = pgTable(
  'fund_donations',
  {
    id: id(),
    churchId: churchId(),
    donationId: uuid('donation_id').notNull(),
    fundId: uuid('fund_id').notNull(),
    amount: money('amount').notNull(),
    /**
     * The donation's person, kept here so a person's allocations are read together (`fund_donations_church_person_idx`)
     * rather than one index lookup per gift. Writers may leave it out: the triggers of migration 0003 fill it in
     * from the donation on insert (when null) and on a move to another donation, and follow a donation's change of person.
     */
    personId: uuid('person_id'),
    /**
     * The UTC day of the donation's `donation_date` while the donation is `complete`, null otherwise: the day this
     * allocation counts in the fund's totals, kept here so a campaign's gifts (a fund between two days) are one
     * range of `fund_donations_church_fund_day_idx`. Writers may leave it out: the triggers of migration 0005 fill
     * it in from the donation and follow the donation's status and date (as `fund_day_totals` does).
     */
    giftDay: date('gift_day', { mode: 'string' }),
    ...timestamps(),
  },
  (t) => [
    index('fund_donations_church_donation_idx').on(t.churchId, t.donationId),
    index('fund_donations_church_fund_idx').on(t.churchId, t.fundId, t.donationId),
    // with the allocation's id, fund, amount (INCLUDE, by hand in migration 0003) and gift day (0005): index-only
    index('fund_donations_church_person_idx').on(t.churchId, t.personId, t.donationId).where(sql`person_id is not null`),
    // a campaign's counted gifts, with their person and amount (INCLUDE, by hand in migration 0005): index-only
    index('fund_donations_church_fund_day_idx').on(t.churchId, t.fundId, t.giftDay).where(sql`gift_day is not null`),
  ],
);

/**
 * A fundraising campaign: a goal for one fund between two days (`end_date` null: open-ended). What it has raised
 * is the complete gifts to its fund whose UTC day falls within its days, both ends included (README "Campaigns").
 * Deleted for good, with its pledges (gifts are the fund's and stay).
 */
export const campaigns = pgTable(
  'campaigns',
  {
    id: id(),
    churchId: churchId(),
    fundId: uuid('fund_id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    goalAmount: money('goal_amount'),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }),
    /** listed on the church's public page (`/campaigns/churchId/:churchId`) while not ended */
    showPublic: boolean('show_public').notNull().default(false),
    /** members may pledge to it themselves (`POST /pledges/my`) */
    allowSelfPledge: boolean('allow_self_pledge').notNull().default(false),
    ...timestamps(),
  },
  (t) => [index('campaigns_church_start_idx').on(t.churchId, t.startDate, t.name)],
);

/** A person's pledge to a campaign: one per person and campaign (a second is an update of the first). */
export const pledges = pgTable(
  'pledges',
  {
    id: id(),
    churchId: churchId(),
    campaignId: uuid('campaign_id').notNull(),
    personId: uuid('person_id').notNull(),
    amount: money('amount').notNull(),
    ...timestamps(),
  },
  (t) => [
    // one pledge per person and campaign; with the amount (INCLUDE, by hand in migration 0005): a campaign's
    // pledged total is index-only
    uniqueIndex('pledges_church_campaign_person_idx').on(t.churchId, t.campaignId, t.personId),
    index('pledges_church_person_idx').on(t.churchId, t.personId),
  ],
);

/**
 * Receipts owed for donations a webhook recorded, written in the statement that records the donation: the
 * `giving.receipts` job sends them in batches (a claimed row is `claimedAt`; it goes when its receipt is sent or
 * handed to a `giving.receipt` job of its own), and a row left claimed for ten minutes (a worker stopped) is
 * claimed again. One row per donation: one receipt per donation.
 */
export const pendingReceipts = pgTable(
  'pending_receipts',
  {
    churchId: churchId(),
    donationId: uuid('donation_id').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    claimedAt: at('claimed_at'),
  },
  (t) => [primaryKey({ columns: [t.churchId, t.donationId] })],
);

/**
 * Kept daily totals: per fund and UTC day of `donation_date`, the sum and count of the allocations of complete
 * donations. Written only by the triggers of migration 0002 (every write to `fund_donations` or to a donation's
 * status or date, in the same transaction); the summary and the public fund total read it, summing over `slot`.
 * A (church, fund, day) is one row (slot 0) unless writers overlapped on it: a writer takes a slot row no other
 * transaction holds (SKIP LOCKED) or adds one, so concurrent gifts to one fund on one day (webhooks) do not
 * queue behind each other's commit.
 */
export const fundDayTotals = pgTable(
  'fund_day_totals',
  {
    churchId: churchId(),
    fundId: uuid('fund_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    slot: smallint('slot').notNull().default(0),
    totalAmount: numeric('total_amount', { precision: 14, scale: 2 }).notNull(),
    giftCount: integer('gift_count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.churchId, t.fundId, t.day, t.slot] })],
);

/**
 * What each person gave to each campaign, kept (migration 0007): the allocations to the campaign's fund whose
 * gift day is within the campaign's days, summed per (church, campaign, person) over slots as `fund_day_totals`
 * keeps a fund's days. Gifts without a person are kept under the nil UUID (`ANONYMOUS_PERSON`). Kept by triggers
 * on `fund_donations` and `campaigns`, in the writer's transaction; a campaign's page reads it instead of every gift.
 */
export const campaignGiftTotals = pgTable(
  'campaign_gift_totals',
  {
    churchId: churchId(),
    campaignId: uuid('campaign_id').notNull(),
    personId: uuid('person_id').notNull(),
    slot: smallint('slot').notNull().default(0),
    given: numeric('given', { precision: 14, scale: 2 }).notNull(),
    giftCount: integer('gift_count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.churchId, t.campaignId, t.personId, t.slot] })],
);

/**
 * Deliveries of jobs whose effect leaves the database (a receipt's mail), by the job's key (`receipt-mail-<donation>`),
 * checked and written by the job's handler (`domain/deliveries.ts`): a job handed to the queue again after it ran
 * (the outbox re-sends what Redis lost when it restarts) finds its delivery done and does nothing.
 */
export const jobDeliveries = pgTable('job_deliveries', {
  jobKey: text('job_key').primaryKey(),
  churchId: churchId(),
  /** `sending` while a handler delivers it, `done` once delivered */
  state: text('state').notNull(),
  claimedAt: timestamp('claimed_at', { withTimezone: true }).notNull().defaultNow(),
  doneAt: timestamp('done_at', { withTimezone: true }),
});

/**
 * A church's payment gateway. `privateKey` and `webhookKey` are AES-256-GCM sealed (never returned); the
 * provisioned webhook endpoint and recurring-gift product ids are kept for update and delete.
 */
export const gateways = pgTable(
  'gateways',
  {
    id: id(),
    churchId: churchId(),
    provider: text('provider').notNull(),
    publicKey: text('public_key'),
    privateKey: text('private_key'),
    webhookKey: text('webhook_key'),
    webhookId: text('webhook_id'),
    productId: text('product_id'),
    payFees: boolean('pay_fees').notNull().default(false),
    currency: text('currency').notNull().default('usd'),
    /** fee overrides: `{card:{percent,fixed}, bank:{percent,cap}, paypal:{percent,fixed}}` */
    feeSettings: jsonb('fee_settings').notNull().default(sql`'{}'::jsonb`),
    ...timestamps(),
  },
  (t) => [uniqueIndex('gateways_church_provider_idx').on(t.churchId, t.provider)],
);

/** Links a person to the provider's customer record. */
export const customers = pgTable(
  'customers',
  {
    id: id(),
    churchId: churchId(),
    personId: uuid('person_id'),
    provider: text('provider').notNull(),
    providerCustomerId: text('provider_customer_id').notNull(),
    email: text('email'),
    name: text('name'),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('customers_church_provider_customer_idx').on(t.churchId, t.provider, t.providerCustomerId),
    index('customers_church_person_idx').on(t.churchId, t.personId),
  ],
);

/** A recurring gift as the provider holds it. */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: id(),
    churchId: churchId(),
    personId: uuid('person_id'),
    customerId: uuid('customer_id'),
    provider: text('provider').notNull(),
    providerSubscriptionId: text('provider_subscription_id').notNull(),
    amount: money('amount').notNull(),
    currency: text('currency').notNull().default('usd'),
    interval: text('interval').notNull().default('month'),
    intervalCount: integer('interval_count').notNull().default(1),
    billingCycleAnchor: at('billing_cycle_anchor'),
    status: text('status').notNull().default('active'),
    fee: money('fee').notNull().default('0'),
    paymentMethodId: text('payment_method_id'),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('subscriptions_church_provider_sub_idx').on(t.churchId, t.provider, t.providerSubscriptionId),
    index('subscriptions_church_person_idx').on(t.churchId, t.personId),
    index('subscriptions_church_customer_idx').on(t.churchId, t.customerId),
  ],
);

/** A subscription's allocation to funds; each period's donation is allocated the same way. */
export const subscriptionFunds = pgTable(
  'subscription_funds',
  {
    id: id(),
    churchId: churchId(),
    subscriptionId: uuid('subscription_id').notNull(),
    fundId: uuid('fund_id').notNull(),
    amount: money('amount').notNull(),
    ...timestamps(),
  },
  (t) => [index('subscription_funds_church_sub_idx').on(t.churchId, t.subscriptionId)],
);

/** Cards and bank accounts as the provider holds them (the provider is the source of truth; this is its index). */
export const paymentMethods = pgTable(
  'payment_methods',
  {
    id: id(),
    churchId: churchId(),
    personId: uuid('person_id'),
    customerId: uuid('customer_id'),
    provider: text('provider').notNull(),
    providerMethodId: text('provider_method_id').notNull(),
    /** `card` or `bank` */
    type: text('type').notNull(),
    brand: text('brand'),
    last4: text('last4'),
    expMonth: integer('exp_month'),
    expYear: integer('exp_year'),
    bankName: text('bank_name'),
    /** `verified`, `pending` (micro-deposits awaited) */
    status: text('status').notNull().default('verified'),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('payment_methods_church_provider_method_idx').on(t.churchId, t.provider, t.providerMethodId),
    index('payment_methods_church_person_idx').on(t.churchId, t.personId),
  ],
);

/** The audit log of gateway events (one row per processed webhook event, plus any a treasurer records by hand). */
export const eventLogs = pgTable(
  'event_logs',
  {
    id: id(),
    churchId: churchId(),
    customerId: text('customer_id'),
    provider: text('provider'),
    providerId: text('provider_id'),
    eventType: text('event_type').notNull(),
    status: text('status'),
    message: text('message'),
    resolved: boolean('resolved').notNull().default(false),
    ...timestamps(),
  },
  (t) => [index('event_logs_church_type_idx').on(t.churchId, t.eventType, t.createdAt), index('event_logs_church_created_idx').on(t.churchId, t.createdAt)],
);

/**
 * `Idempotency-Key` of charge, subscribe and donation saves: the first answer is kept for 24 hours; a retry
 * with the same key answers it again and does nothing.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    churchId: churchId(),
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    /** hash of the request body: the same key with another body is refused */
    requestHash: text('request_hash').notNull(),
    statusCode: integer('status_code'),
    response: jsonb('response'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('idempotency_keys_church_scope_key_idx').on(t.churchId, t.scope, t.key)],
);

/**
 * A payment of one of content's event registrations, charged through the church's gateway (content's
 * `givingInternal.registrationCharge`): never a gift, so it has no fund, receipt or place in the giving totals.
 * One row per idempotency key of the church: the row is claimed (`charging`) before the gateway is asked, a retry
 * with the key answers the row, and a failed charge releases it. `status` is the contract's: `succeeded`,
 * `processing` (a bank debit under way), `requires_action` (the browser finishes 3-D Secure; the webhook moves it).
 */
export const registrationPayments = pgTable(
  'registration_payments',
  {
    id: id(),
    churchId: churchId(),
    registrationId: uuid('registration_id').notNull(),
    personId: uuid('person_id'),
    email: text('email'),
    name: text('name'),
    gatewayId: uuid('gateway_id'),
    provider: text('provider').notNull(),
    transactionId: text('transaction_id'),
    amount: money('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status').notNull(),
    /** `card`, `ach`, `paypal`, as the gateway reports the payment */
    method: text('method'),
    /** what the browser finishes a `requires_action` payment with (answered again to a retry of the key) */
    clientSecret: text('client_secret'),
    idempotencyKey: text('idempotency_key').notNull(),
    /** hash of the request body: the same key with another body is refused */
    requestHash: text('request_hash').notNull(),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('registration_payments_church_key_idx').on(t.churchId, t.idempotencyKey),
    uniqueIndex('registration_payments_church_transaction_idx').on(t.churchId, t.transactionId),
    index('registration_payments_church_registration_idx').on(t.churchId, t.registrationId),
    index('registration_payments_church_person_idx').on(t.churchId, t.personId).where(sql`person_id is not null`),
  ],
);
