import { z } from 'zod';
import { CalendarDay, exactShape, Id, IsoDate, Money, OptionalText } from '@church/common';
import { ISO_4217 } from './lib/currencies';

// What the giving API accepts and answers. Response schemas list every field that leaves the service; money
// leaves as a JSON number of currency units. Save bodies strip unknown fields (clients post records back as
// they read them); the church always comes from the token.

const Stamp = z.date();
const Amount = z.number();
/** A positive amount of at most 12 digits with two decimals. */
export const PositiveMoney = Money.refine((v) => v > 0, 'must be greater than 0').refine((v) => v < 10_000_000_000, 'is too large');
export const NonNegativeMoney = Money.refine((v) => v >= 0, 'must not be negative').refine((v) => v < 10_000_000_000, 'is too large');
export const Currency = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z]{3}$/, 'must be a three-letter currency code')
  .refine((c) => ISO_4217.has(c), 'must be an ISO 4217 currency code');
export const ProviderName = z.enum(['stripe', 'paypal'], { message: 'must be stripe or paypal' });
/** A provider's own id (`pm_…`, `cus_…`, a PayPal order id). */
export const ProviderId = z.string().trim().min(1, 'is required').max(255);
/** A record named by the payment provider's id (a subscription), as a route's `:id`. */
export const ProviderRefParams = z.object({ id: ProviderId });

export const DonationStatus = z.enum(['complete', 'pending', 'failed', 'refunded']);

export const Donation = z.object({
  id: z.string(),
  batchId: z.string().nullable(),
  personId: z.string().nullable(),
  donationDate: Stamp,
  amount: Amount,
  currency: z.string(),
  method: z.string().nullable(),
  methodDetails: z.string().nullable(),
  notes: z.string().nullable(),
  status: z.string(),
  transactionId: z.string().nullable(),
  provider: z.string().nullable(),
  fee: Amount,
  refundedAmount: Amount,
  subscriptionId: z.string().nullable(),
  /** with the list and `/my`: the gift's allocations */
  funds: z.array(z.object({ id: z.string(), fundId: z.string(), fundName: z.string().nullable().optional(), amount: Amount })).optional(),
  /** with `funds`: the allocations in one line, as the member app's giving history reads a gift */
  fund: z.object({ id: z.string().nullable(), name: z.string().nullable(), amount: Amount }).optional(),
});
/** Donation lists: their JSON text is written by PostgreSQL (`listDonations`) with these fields. */
export const DonationList = z.array(Donation);
/**
 * An allocation carried by a donation save (`funds`): the donation's whole new set. An `id` of one of its
 * allocations keeps that row (the apps post back the donation as they read it, allocations included, and then
 * save the allocations by those ids); allocations not listed are removed.
 */
export const FundAllocation = z.object({ id: Id.optional(), fundId: Id, amount: NonNegativeMoney });
export const DonationSave = z.object({
  id: Id.optional(),
  batchId: Id.nullish(),
  personId: Id.nullish(),
  donationDate: IsoDate.optional(),
  amount: PositiveMoney.optional(),
  currency: Currency.optional(),
  method: OptionalText,
  methodDetails: OptionalText,
  notes: OptionalText,
  status: DonationStatus.optional(),
  transactionId: z.string().trim().max(255).nullish(),
  /** replaces the donation's allocations in the same transaction */
  funds: z.array(FundAllocation).max(100).optional(),
});

export const Batch = z.object({
  id: z.string(),
  name: z.string(),
  batchDate: Stamp.nullable(),
  donationCount: z.number().int(),
  totalAmount: Amount,
});
export const BatchSave = z.object({ id: Id.optional(), name: z.string().trim().min(1, 'is required').max(255).optional(), batchDate: IsoDate.nullish() });

export const Fund = z.object({ id: z.string(), name: z.string(), taxDeductible: z.boolean(), visible: z.boolean() });
export const FundSave = z.object({
  id: Id.optional(),
  name: z.string().trim().min(1, 'is required').max(255),
  taxDeductible: z.boolean().optional(),
  visible: z.boolean().optional(),
});

/** The donation an allocation belongs to, as the staff app's fund page reads it (`fd.donation.personId`). */
const AllocatedDonation = z.object({ id: z.string(), batchId: z.string().nullable(), personId: z.string().nullable(), donationDate: Stamp, currency: z.string() });
export const FundDonation = z.object({
  id: z.string(),
  donationId: z.string(),
  fundId: z.string(),
  amount: Amount,
  fundName: z.string().nullable().optional(),
  personId: z.string().nullable().optional(),
  donationDate: Stamp.nullable().optional(),
  donation: AllocatedDonation.nullable().optional(),
});
export const FundDonationSave = z.object({ id: Id.optional(), donationId: Id.optional(), fundId: Id.optional(), amount: NonNegativeMoney.optional() });

/**
 * A row of the summary: by fund, `{week, fund, totalAmount, count}`; per donor (`type=person`), `{totalAmount,
 * count, personId, displayName, funds}` with `funds` as `[{<fund name>: amount}]`, as the staff app reads it.
 */
export const SummaryRow = z.object({
  week: z.string().optional(),
  fund: z.string().optional(),
  totalAmount: Amount,
  count: z.number().int(),
  personId: z.string().nullable().optional(),
  displayName: z.string().nullable().optional(),
  funds: z.array(z.record(z.string(), Amount)).optional(),
});
/** The summary's rows, built field by field in this order (`fundSummary`, `donationSummary`): written with JSON.stringify. */
export const SummaryRows = exactShape(z.array(SummaryRow));

const FeeRule = z.object({
  percent: z.coerce.number().min(0).max(50).optional(),
  fixed: NonNegativeMoney.optional(),
  cap: NonNegativeMoney.nullish(),
});
export const FeeSettingsSchema = z.object({ card: FeeRule.optional(), bank: FeeRule.optional(), paypal: FeeRule.optional() });

export const Gateway = z.object({
  id: z.string(),
  provider: z.string(),
  publicKey: z.string().nullable(),
  /** masked (`••••1234`); the key itself never leaves */
  privateKey: z.string().nullable(),
  webhookKey: z.string().nullable(),
  webhookId: z.string().nullable(),
  productId: z.string().nullable(),
  payFees: z.boolean(),
  currency: z.string(),
  feeSettings: z.record(z.string(), z.unknown()),
});
export const PublicGateway = z.object({ id: z.string(), provider: z.string(), publicKey: z.string().nullable(), payFees: z.boolean(), currency: z.string() });
export const GatewaySave = z.object({
  id: Id.optional(),
  provider: ProviderName.optional(),
  publicKey: z.string().trim().max(500).nullish(),
  privateKey: z.string().trim().max(500).nullish(),
  webhookKey: z.string().trim().max(500).nullish(),
  /** the provider's webhook id, for a webhook set up by hand (PayPal verifies signatures against it) */
  webhookId: z.string().trim().max(255).nullish(),
  productId: z.string().trim().max(255).nullish(),
  payFees: z.boolean().optional(),
  currency: Currency.optional(),
  feeSettings: FeeSettingsSchema.optional(),
});

export const Customer = z.object({
  id: z.string(),
  personId: z.string().nullable(),
  provider: z.string(),
  providerCustomerId: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
});

export const Subscription = z.object({
  id: z.string(),
  personId: z.string().nullable(),
  customerId: z.string().nullable(),
  provider: z.string(),
  providerSubscriptionId: z.string(),
  amount: Amount,
  currency: z.string(),
  interval: z.string(),
  intervalCount: z.number().int(),
  billingCycleAnchor: Stamp.nullable(),
  status: z.string(),
  fee: Amount,
  paymentMethodId: z.string().nullable(),
  funds: z.array(z.object({ id: z.string(), fundId: z.string(), amount: Amount })).optional(),
});
const Interval = z.object({ interval_count: z.coerce.number().int().min(1).max(36).default(1), interval: z.enum(['day', 'week', 'month', 'year']) });
/** An item of `POST /subscriptions`: the subscription (by either id) with what changes. */
export const SubscriptionUpdate = z.object({
  /** the local id, or the provider's (`sub_…`) as the donor portal names it */
  id: ProviderId,
  amount: PositiveMoney.optional(),
  /** a new interval; the name alone (`month`), as a gateway subscription read back carries it, changes nothing */
  interval: z.union([Interval, z.string().max(20)]).optional(),
  /** the donor portal's form of `interval` (a Stripe subscription's `plan`) */
  plan: Interval.partial().optional(),
  paymentMethodId: z.string().trim().min(1).max(255).optional(),
  /** the donor portal's form of `paymentMethodId`: a card, or a bank account */
  default_payment_method: z.string().trim().max(255).nullish(),
  default_source: z.string().trim().max(255).nullish(),
  /** replaces the allocations; their sum must not exceed the amount */
  funds: z.array(z.object({ id: Id.optional(), fundId: Id.optional(), amount: NonNegativeMoney })).min(1).max(10).optional(),
});
/** `DELETE /subscriptions/:id`'s body: the apps cancel with no body at all. */
export const CancelBody = z.object({ provider: ProviderName.optional(), reason: z.string().trim().max(500).optional() }).nullish();
/** A subscription's allocation; `name` (the fund's, as `fundName`) is what the donor portal shows. */
export const SubscriptionFund = z.object({ id: z.string(), subscriptionId: z.string(), fundId: z.string(), amount: Amount, fundName: z.string().nullable().optional(), name: z.string().nullable().optional() });

/**
 * A stored card or bank account. `id` is the provider's id of the method (`pm_…`, `ba_…`): what the apps charge
 * and edit it by (`providerMethodId` says the same); `name`, `exp_month` and `exp_year` as the donation forms read
 * a saved method.
 */
export const PaymentMethod = z.object({
  id: z.string(),
  personId: z.string().nullable(),
  customerId: z.string().nullable(),
  provider: z.string(),
  providerMethodId: z.string(),
  type: z.string(),
  brand: z.string().nullable(),
  last4: z.string().nullable(),
  expMonth: z.number().int().nullable(),
  expYear: z.number().int().nullable(),
  bankName: z.string().nullable(),
  status: z.string(),
  name: z.string().nullable(),
  exp_month: z.number().int().nullable(),
  exp_year: z.number().int().nullable(),
});

// The payment-method routes' bodies (`/giving/paymentmethods/...`): a card or bank account at the gateway, for a person.
const Person = { personId: Id.optional(), customerId: ProviderId.optional(), email: z.string().trim().max(255).nullish(), name: z.string().trim().max(255).nullish(), churchId: Id.optional(), provider: ProviderName.optional() };
export const AddCard = z.object({ id: ProviderId, ...Person });
export const UpdateCard = z.object({
  personId: Id.optional(),
  paymentMethodId: ProviderId,
  provider: ProviderName.optional(),
  cardData: z.object({ exp_month: z.coerce.number().int().min(1).max(12).optional(), exp_year: z.coerce.number().int().min(2000).max(2200).optional(), name: z.string().max(255).nullish() }).default({}),
});
export const SetupIntent = z.object({ ...Person });
export const SetupIntentAnon = z.object({
  email: z.string().trim().max(255).nullish(),
  name: z.string().trim().max(255).nullish(),
  churchId: Id,
  gatewayId: Id.optional(),
  /** the pass `POST /donate/captcha-verify` answered */
  verificationToken: z.string().max(500).optional(),
  /** or a fresh captcha token, verified here */
  captchaToken: z.string().max(4000).optional(),
});
export const AddBank = z.object({ id: ProviderId, ...Person });
export const UpdateBank = z.object({
  paymentMethodId: ProviderId,
  personId: Id.optional(),
  customerId: ProviderId,
  provider: ProviderName.optional(),
  bankData: z.object({ account_holder_name: z.string().max(255).nullish(), account_holder_type: z.enum(['individual', 'company']).nullish() }).default({}),
});
export const VerifyBank = z.object({
  paymentMethodId: ProviderId,
  customerId: ProviderId,
  provider: ProviderName.optional(),
  amountData: z.object({ amounts: z.array(z.coerce.number().int().min(1).max(99)).length(2).optional(), descriptorCode: z.string().trim().max(20).optional() }),
});

export const EventLog = z.object({
  id: z.string(),
  customerId: z.string().nullable(),
  provider: z.string().nullable(),
  providerId: z.string().nullable(),
  eventType: z.string(),
  status: z.string().nullable(),
  message: z.string().nullable(),
  resolved: z.boolean(),
  createdAt: Stamp,
  /** the person of the event's customer (`''` when unknown) and `createdAt` again, as the staff app reads an entry */
  personId: z.string().optional(),
  created: Stamp.optional(),
});
export const EventLogSave = z.object({
  id: Id.optional(),
  customerId: z.string().trim().max(255).nullish(),
  provider: z.string().trim().max(50).nullish(),
  providerId: z.string().trim().max(255).nullish(),
  eventType: z.string().trim().min(1, 'is required').max(255).optional(),
  status: z.string().trim().max(255).nullish(),
  message: z.string().max(5000).nullish(),
  resolved: z.boolean().optional(),
});

/** `{id, name, amount}` of a charge's or subscription's funds. */
export const GiftFund = z.object({ id: Id, name: z.string().max(255).optional(), amount: PositiveMoney });
export const GiftPerson = z.object({ id: Id.nullish(), email: z.string().trim().max(255).nullish(), name: z.string().trim().max(255).nullish() });
export const GiftChurch = z.object({ name: z.string().max(255).nullish(), subDomain: z.string().max(255).nullish() }).optional();

export const ChargeBody = z.object({
  provider: ProviderName.default('stripe'),
  gatewayId: Id.optional(),
  /** the payment method (`pm_…`) or, for the checkout-style gateway, the approved order id */
  id: ProviderId.optional(),
  paymentMethodId: ProviderId.optional(),
  orderId: ProviderId.optional(),
  customerId: ProviderId.optional(),
  type: z.enum(['card', 'bank', 'ach', 'paypal']).default('card'),
  amount: PositiveMoney,
  /** the gateway's currency when absent */
  currency: Currency.optional(),
  person: GiftPerson.optional(),
  funds: z.array(GiftFund).min(1, 'at least one fund').max(10),
  church: GiftChurch,
  notes: z.string().max(2000).optional(),
});
export const ChargeAnswer = z.object({ id: z.string(), status: z.string(), provider: z.string(), donationId: z.string().nullable(), clientSecret: z.string().nullable().optional() });

export const SubscribeBody = z.object({
  provider: ProviderName.default('stripe'),
  gatewayId: Id.optional(),
  id: ProviderId.optional(),
  paymentMethodId: ProviderId.optional(),
  customerId: ProviderId.optional(),
  type: z.enum(['card', 'bank', 'ach', 'paypal']).default('card'),
  amount: PositiveMoney,
  /** the gateway's currency when absent */
  currency: Currency.optional(),
  interval: z.object({ interval_count: z.coerce.number().int().min(1).max(36).default(1), interval: z.enum(['day', 'week', 'month', 'year']) }),
  /** when the first period starts: seconds, or milliseconds as the donation forms send it (`+new Date()`) */
  billing_cycle_anchor: z.coerce.number().int().positive().nullish(),
  person: GiftPerson.optional(),
  funds: z.array(GiftFund).min(1, 'at least one fund').max(10),
  church: GiftChurch,
});
export const SubscribeAnswer = z.object({ id: z.string(), status: z.string(), provider: z.string(), subscriptionId: z.string() });

/** `POST /donate/create-order`'s body: a checkout order (PayPal) for the gift's funds. */
export const CreateOrderBody = z.object({
  provider: ProviderName.default('paypal'),
  gatewayId: Id.optional(),
  amount: PositiveMoney,
  currency: Currency.optional(),
  funds: z.array(z.object({ id: Id, name: z.string().max(255).optional(), amount: PositiveMoney })).min(1).max(10),
  person: z.object({ id: Id.nullish(), email: z.string().max(255).nullish() }).optional(),
  church: z.object({ name: z.string().max(255).nullish(), subDomain: z.string().max(255).nullish() }).optional(),
});
/** `POST /donate/log`'s body: a gateway payment to record, by its transaction id, with its allocations. */
export const LogBody = z.object({
  donation: z.object({
    churchId: Id,
    transactionId: z.string().trim().min(1, 'is required').max(255),
    provider: ProviderName.optional(),
    /** ignored: the payment decides who gave */
    personId: Id.nullish(),
    notes: z.string().max(2000).nullish(),
  }),
  fundData: z.array(z.object({ id: Id.optional(), fundId: Id.optional(), amount: PositiveMoney })).min(1).max(10),
});
export const FeeBody = z.object({
  type: z.string().trim().max(50).default('card'),
  provider: ProviderName.optional(),
  gatewayId: Id.optional(),
  amount: NonNegativeMoney,
  /** the gateway's currency when absent */
  currency: Currency.optional(),
});

export const ReplayBody = z.object({
  startDate: IsoDate,
  endDate: IsoDate,
  dryRun: z.boolean().default(false),
  provider: ProviderName.default('stripe'),
});

export const ChurchQuery = z.object({ churchId: Id });
export const DateRangeQuery = z.object({ startDate: IsoDate.optional(), endDate: IsoDate.optional() });


export const Campaign = z.object({
  id: z.string(),
  fundId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  goalAmount: Amount.nullable(),
  startDate: z.string(),
  endDate: z.string().nullable(),
  showPublic: z.boolean(),
  allowSelfPledge: z.boolean(),
});
/** A campaign as the staff app's editor posts it (the record it read, changed): `endDate` null is open-ended. */
export const CampaignSave = z.object({
  id: Id.optional(),
  fundId: Id.optional(),
  name: z.string().trim().min(1, 'is required').max(255).optional(),
  description: z.string().trim().max(5000).nullish(),
  /** none (null) or a positive amount; 0 is read as none */
  goalAmount: NonNegativeMoney.nullish(),
  startDate: CalendarDay.optional(),
  endDate: CalendarDay.nullish(),
  showPublic: z.boolean().optional(),
  allowSelfPledge: z.boolean().optional(),
});

export const Pledge = z.object({ id: z.string(), campaignId: z.string(), personId: z.string(), amount: Amount });
export const PledgeSave = z.object({ id: Id.optional(), campaignId: Id.optional(), personId: Id.optional(), amount: PositiveMoney.optional() });
/** A member's own pledge (`POST /pledges/my`): the person is the caller's. */
export const MyPledgeSave = z.object({ campaignId: Id, amount: PositiveMoney });

export const PledgeStatus = z.enum(['notStarted', 'inProgress', 'fulfilled', 'beyondPledged', 'nonPledged']);
/**
 * One person's standing in a campaign: what they pledged and gave, and `status` (`nonPledged` when they gave
 * without a pledge). `personId` null is the campaign's anonymous gifts, together.
 */
export const PledgeProgressRow = z.object({
  campaignId: z.string(),
  campaignName: z.string().optional(),
  personId: z.string().nullable(),
  pledgeId: z.string().nullable(),
  pledgedAmount: Amount,
  givenAmount: Amount,
  status: PledgeStatus,
});
/** A campaign with what it has raised (`totalGiven`), been pledged, its donors and `percent` of its goal. */
export const CampaignProgress = z.object({
  campaign: Campaign,
  totalGiven: Amount,
  totalPledged: Amount,
  pledgeCount: z.number().int(),
  /** the known people whose gifts to it sum above zero: one campaign's page (not the lists) */
  donorCount: z.number().int().optional(),
  /** of the goal, rounded, above 100 when it is passed; null without a goal */
  percent: z.number().int().nullable(),
  rows: z.array(PledgeProgressRow).optional(),
});
/**
 * One campaign's page (`GET /campaigns/:id/progress`): its totals, donors and a row per person, in the schema's key
 * order, written with JSON.stringify (`exactShape`: thousands of rows on a big campaign).
 */
export const CampaignPage = exactShape(CampaignProgress.extend({ donorCount: z.number().int(), rows: z.array(PledgeProgressRow) }));
/** The public list (the member app's giving page): the campaigns and their totals, no person. */
export const PublicCampaignProgress = CampaignProgress.omit({ rows: true }).extend({ campaign: Campaign.omit({ showPublic: true }) });
/** A member's own pledge with its campaign, what they gave to it and how it stands (the member app's giving page). */
export const MyPledge = z.object({ pledge: Pledge, campaign: Campaign, givenAmount: Amount, status: PledgeStatus });
export const PeopleProgressQuery = z.object({ personId: Id.optional(), campaignId: Id.optional() });

export const WebhookParams = z.object({ provider: ProviderName });
export const WebhookQuery = z.object({ churchId: Id });
/** A provider's webhook delivery, answered: `duplicate` when the event was recorded before (webhookIntake's default answer). */
export const WebhookReceived = z.object({ received: z.literal(true), duplicate: z.boolean() });

/** `GET /giving/donations`: a batch's or a person's donations. */
export const DonationListQuery = z.object({ batchId: Id.optional(), personId: Id.optional() });
export const DonationSummaryQuery = z.object({ startDate: IsoDate.optional(), endDate: IsoDate.optional(), type: z.enum(['fund', 'person', '']).optional() });
export const DonationKpiQuery = z.object({ startDate: IsoDate.optional(), endDate: IsoDate.optional(), fundId: Id.optional() });
export const DonationKpis = z.object({ totalGiving: z.number(), avgGift: z.number(), donorCount: z.number().int(), donationCount: z.number().int() });
/** `GET /giving/donations/testEmail`: how the receipt test mail went. */
export const TestEmailAnswer = z.object({ sent: z.boolean(), to: z.string().nullable(), via: z.string(), message: z.string() });

/** `POST /giving/donate/replay-gatewayA-events`: what a replay found and did. */
export const ReplayAnswer = z.object({
  dryRun: z.boolean(),
  total: z.number().int(),
  alreadyRecorded: z.number().int(),
  missing: z.number().int(),
  processed: z.number().int(),
  events: z.array(z.object({ id: z.string(), type: z.string(), created: z.string(), action: z.string() })),
});
/** The staff app's Stripe import page: dates as it sends them, a dry run unless it says otherwise. */
export const StripeReplayBody = z.object({ startDate: IsoDate, endDate: IsoDate, dryRun: z.boolean().default(true) });
/** B1Admin's Stripe import page's answer. */
export const StripeImport = z.object({
  dryRun: z.boolean(),
  summary: z.object({ total: z.number().int(), new: z.number().int(), alreadyImported: z.number().int(), imported: z.number().int(), skipped: z.number().int(), errors: z.number().int() }),
  results: z.array(
    z.object({
      eventId: z.string(),
      type: z.string(),
      amount: z.number(),
      currency: z.string().nullable(),
      created: z.string(),
      customer: z.string().nullable(),
      status: z.enum(['new', 'already_imported', 'imported', 'skipped', 'error']),
      error: z.string().optional(),
    }),
  ),
});
