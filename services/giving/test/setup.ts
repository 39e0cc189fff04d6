import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { fakeInternal, tokenFor, call, signedCall, useModule, type TestApp } from '@church/common/testing';
import type { ServiceDeps } from '@church/common';
import { buildApp } from '../src/app';
import { fakeStripe, type FakeStripe } from './fake-stripe';

export const MIGRATIONS = path.join(__dirname, '..', 'drizzle');
export { fakeInternal, type InternalCall } from '@church/common/testing';

/** People membership knows in these tests, by id (of any church, unless one is named). */
export const people = new Map<string, { firstName: string; lastName: string; email: string | null; churchId?: string }>();
/** Whether membership answers for the person in the church it is asked about. */
const ofChurch = (id: string, body: unknown) => people.has(id) && (!people.get(id)!.churchId || people.get(id)!.churchId === (body as { churchId: string }).churchId);

/** Membership as the giving module calls it: the church's name, contacts and basic person records. */
export function fakeMembership() {
  return fakeInternal({
    'POST /membership/internal/church': (body) => ({ id: (body as { churchId: string }).churchId, name: 'Grace Church', subDomain: 'grace' }),
    'POST /membership/internal/people/contacts': (body) =>
      ((body as { ids?: string[] }).ids ?? [])
        .filter((id) => ofChurch(id, body))
        .map((id) => {
          const p = people.get(id)!;
          return { id, firstName: p.firstName, lastName: p.lastName, displayName: `${p.firstName} ${p.lastName}`, email: p.email, mobilePhone: null, optedOut: false, leader: false };
        }),
    'POST /membership/internal/people/basic': (body) =>
      ((body as { ids?: string[] }).ids ?? [])
        .filter((id) => ofChurch(id, body))
        .map((id) => ({ id, displayName: `${people.get(id)!.firstName} ${people.get(id)!.lastName}`, firstName: people.get(id)!.firstName, lastName: people.get(id)!.lastName, photo: null })),
  });
}

export type GivingTest = TestApp & {
  stripe: FakeStripe;
  internal: ReturnType<typeof fakeMembership>;
};

/**
 * The giving app on a fresh test database for a test file (`useModule`), with the real Stripe SDK pointed at a
 * loopback fake (`t.stripe`), membership faked (`t.internal`), receipts without delay and short provider timeouts.
 * `config` (or a function giving it when the app starts, for fakes a file starts itself) adds or overrides settings.
 */
export function useGiving(opts: { config?: Record<string, string> | (() => Record<string, string>); overrides?: Partial<ServiceDeps> } = {}): GivingTest {
  return useModule({
    module: 'giving',
    migrations: MIGRATIONS,
    build: buildApp,
    overrides: opts.overrides,
    fakes: async () => {
      const stripe = await fakeStripe({ slowMs: 2500 });
      const internal = fakeMembership();
      return {
        stripe,
        internal,
        config: { STRIPE_API_BASE: stripe.url, STRIPE_MAX_RETRIES: '0', PAYMENT_TIMEOUT_MS: '1500', RECEIPT_DELAY_MS: '0', ...(typeof opts.config === 'function' ? opts.config() : opts.config) },
        overrides: { internal },
        close: () => stripe.close(),
      };
    },
  });
}

/** A church for a test (`@church/common/testing`); `Settings.Edit` lands in the giving API's list too. */
export { makeChurch } from '@church/common/testing';
/** Tokens as login mints them; kept under this name for the giving tests. */
export const givingToken = tokenFor;

/** A person membership knows, with an email for receipts. */
export function makePerson(firstName = 'Ada', lastName = 'Lovelace', email: string | null = `${firstName.toLowerCase()}-${randomUUID().slice(0, 6)}@example.test`, churchId?: string) {
  const id = randomUUID();
  people.set(id, { firstName, lastName, email, churchId });
  return { id, email };
}

/** Creates funds through the API and answers their ids. */
export async function makeFunds(t: TestApp, token: string, names: string[], extra: Record<string, unknown> = {}) {
  const res = await call(t.app, 'POST', '/giving/funds', { token, body: names.map((name) => ({ name, ...extra })) });
  if (res.statusCode !== 200) throw new Error(`funds: ${res.statusCode} ${res.body}`);
  return (res.json() as Array<{ id: string }>).map((f) => f.id);
}

export const STRIPE_SECRET = 'sk_test_51abcdefghijklmnop1234';

/** Saves a Stripe gateway for the church; `webhookKey` given means "set up by hand" (no provisioning). */
export async function makeStripeGateway(t: TestApp, token: string, extra: Record<string, unknown> = { webhookKey: 'whsec_test_secret' }) {
  const res = await call(t.app, 'POST', '/giving/gateways', { token, body: { provider: 'stripe', publicKey: 'pk_test_123', privateKey: STRIPE_SECRET, ...extra } });
  if (res.statusCode !== 200) throw new Error(`gateway: ${res.statusCode} ${res.body}`);
  return (res.json() as Array<{ id: string }>)[0]!.id;
}

/** A Stripe webhook delivery signed as Stripe signs it (`stripe.webhooks.generateTestHeaderString`). */
export function signedStripe(payload: unknown, secret = 'whsec_test_secret', timestamp?: number) {
  const body = JSON.stringify(payload);
  const stripe = new Stripe('sk_test_x');
  const signature = stripe.webhooks.generateTestHeaderString({ payload: body, secret, ...(timestamp ? { timestamp } : {}) });
  return { body, headers: { 'stripe-signature': signature, 'content-type': 'application/json' } };
}

/** Delivers a signed Stripe event to the church's webhook URL. */
export function deliver(t: TestApp, churchId: string, payload: unknown, secret?: string) {
  const { body, headers } = signedStripe(payload, secret);
  return t.app.inject({ method: 'POST', url: `/giving/donate/webhook/stripe?churchId=${churchId}`, payload: body, headers });
}

/** A call to an internal route, signed as another module's internal client signs it. */
export const signedInternal = (t: TestApp, url: string, body: unknown, secret?: string) => signedCall(t.app, url, body, secret);
