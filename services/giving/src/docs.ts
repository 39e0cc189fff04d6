/**
 * What each group of this module's routes is about, for the people who call the API: a tag per table of the spec,
 * shown in the module's OpenAPI document (routes the spec does not list are grouped by path there).
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Donations: 'Gifts: recording them, a person’s giving, summaries and statements.',
  'Donation batches': 'Batches of gifts entered together (a Sunday’s offering).',
  Donate: 'Giving online: charging a card or bank account, recurring gifts, fees, and the provider webhooks that confirm them.',
  Funds: 'The funds gifts are given to, and their totals.',
  'Fund donations': 'How each gift is split between funds.',
  Gateways: 'The payment providers (Stripe, PayPal) a church gives through, and their keys.',
  Customers: 'Donors as the payment provider knows them.',
  Subscriptions: 'Recurring gifts.',
  'Subscription funds': 'How each recurring gift is split between funds.',
  'Payment methods': 'A donor’s saved cards and bank accounts.',
  'Event log': 'What the payment providers reported, for reconciling gifts.',
};
