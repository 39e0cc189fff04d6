import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { DELIVERY_RETRIES, type EmailMessage } from '@church/common';
import { call } from '@church/common/testing';
import { pendingReceipts } from '../../src/db/schema';
import { receiptMailJob, receiptsSweep } from '../../src/jobs';
import { deliver, makeChurch, makeFunds, makePerson, makeStripeGateway, useGiving } from '../setup';

// Receipts of webhook gifts: pending with the donation, sent in batches by `giving.receipts`.
const sent: EmailMessage[] = [];
const failOnce = new Set<string>();
const t = useGiving({
  overrides: {
    mailer: {
      kind: 'mailbox',
      async send(message) {
        if (failOnce.delete(message.to)) throw new Error('mail server busy');
        sent.push(message);
      },
    },
  },
});

const pendingOf = (churchId: string) => t.app.db.select().from(pendingReceipts).where(eq(pendingReceipts.churchId, churchId));

function payment(churchId: string, funds: string, email: string, cents = 2500) {
  return {
    id: `pi_${randomUUID().slice(0, 12)}`,
    object: 'payment_intent',
    amount: cents,
    amount_received: cents,
    currency: 'usd',
    customer: null,
    payment_method_types: ['card'],
    status: 'succeeded',
    metadata: { churchId, personId: '', funds, fee: '0.00', email },
  };
}

describe('receipts of webhook gifts', () => {
  it('sends one receipt per gift of a burst, in batches, and a failed one again on its own', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const [general] = await makeFunds(t, c.token(['Donations.Edit']), ['General']);
    // more gifts than one batch claims (50)
    const emails = Array.from({ length: 120 }, (_, i) => `guest${i}-${c.churchId}@example.test`);
    failOnce.add(emails[7]!);
    const events = emails.map((email) => t.stripe.event('payment_intent.succeeded', payment(c.churchId, `${general}:2500`, email)));
    const answers = await Promise.all(events.map((event) => deliver(t, c.churchId, event)));
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    await t.drain();

    const mine = sent.filter((m) => m.to.endsWith(`-${c.churchId}@example.test`));
    expect(mine.map((m) => m.to).sort()).toEqual([...emails].sort());
    expect(mine[0]).toMatchObject({ subject: 'Thank you for your gift to Grace Church', text: expect.stringContaining('General: USD 25.00') });
    expect(await pendingOf(c.churchId)).toEqual([]);
    // the church's name asked once for the whole burst
    expect(t.internal.calls.filter((x) => x.path === '/membership/internal/church' && (x.body as { churchId: string }).churchId === c.churchId)).toHaveLength(1);

    // the same events again: no second receipt
    const before = sent.length;
    expect((await Promise.all(events.slice(0, 20).map((event) => deliver(t, c.churchId, event)))).every((a) => a.json().duplicate)).toBe(true);
    await t.drain();
    expect(sent.length).toBe(before);
  });

  it("sends what a stopped worker left claimed with the church's other pending receipts, leaves what a live one holds, and sends each once", async () => {
    const c = makeChurch();
    const gift = async (email: string) => {
      const id = randomUUID();
      await t.app.db.execute(sql`insert into donations (id, church_id, amount, currency, status, email, transaction_id, provider) values (${id}, ${c.churchId}, 12.34, 'usd', 'complete', ${email}, ${`pi_${id}`}, 'stripe')`);
      return id;
    };
    const stale = await gift(`stale-${c.churchId}@example.test`);
    const held = await gift(`held-${c.churchId}@example.test`);
    const fresh = await gift(`fresh-${c.churchId}@example.test`);
    await t.app.db.execute(sql`insert into pending_receipts (church_id, donation_id, created_at, claimed_at) values
      (${c.churchId}, ${stale}, now() - interval '11 minutes', now() - interval '11 minutes'),
      (${c.churchId}, ${held}, now() - interval '2 minutes', now() - interval '1 minute'),
      (${c.churchId}, ${fresh}, now(), null)`);

    await t.deps.queue.enqueue(receiptsSweep, {});
    await t.drain();
    const to = () => sent.filter((m) => m.to.endsWith(`-${c.churchId}@example.test`)).map((m) => m.to);
    expect(to().sort()).toEqual([`fresh-${c.churchId}@example.test`, `stale-${c.churchId}@example.test`]);
    expect((await pendingOf(c.churchId)).map((r) => r.donationId)).toEqual([held]);

    await t.deps.queue.enqueue(receiptsSweep, {});
    await t.drain();
    expect(to().sort()).toEqual([`fresh-${c.churchId}@example.test`, `stale-${c.churchId}@example.test`]);
  });
});

describe('receipts of gifts entered by hand (issue 32)', () => {
  const outbox = (name: string, churchId: string) =>
    t.app.db.execute(sql`select name, data, attempts, state from job_outbox where name = ${name} and (data->>'churchId' = ${churchId} or data->>'to' like ${`%-${churchId}@example.test`})`).then((r) => (r as unknown as { rows: Array<{ name: string; data: Record<string, string>; attempts: number }> }).rows);

  it('writes the receipt job with the donation, retried as long as a delivery to a person is, and sends the mail as giving.receiptMail', async () => {
    const c = makeChurch();
    const donor = makePerson('Rita', 'Receipt', `rita-${c.churchId}@example.test`, c.churchId);
    const [general] = await makeFunds(t, c.token(['Donations.Edit']), ['General']);
    const [gift] = (await call(t.app, 'POST', '/giving/donations', { token: c.token(['Donations.Edit']), body: { personId: donor.id, amount: 15, funds: [{ fundId: general, amount: 15 }] } })).json();
    expect(await outbox('giving.receipt', c.churchId)).toEqual([expect.objectContaining({ data: { churchId: c.churchId, donationId: gift.id }, attempts: DELIVERY_RETRIES.attempts })]);
    await t.drain();
    expect(await outbox('giving.receiptMail', c.churchId)).toEqual([
      expect.objectContaining({
        data: { churchId: c.churchId, donationId: gift.id, message: expect.objectContaining({ to: donor.email, subject: 'Thank you for your gift to Grace Church' }) },
        attempts: DELIVERY_RETRIES.attempts,
      }),
    ]);
    expect(sent.filter((m) => m.to === donor.email)).toHaveLength(1);
  });

  it('mails a receipt once when the queue hands its finished job over again (Redis restarted before the run was confirmed)', async () => {
    const c = makeChurch();
    const donor = makePerson('Otto', 'Once', `otto-${c.churchId}@example.test`, c.churchId);
    const [general] = await makeFunds(t, c.token(['Donations.Edit']), ['General']);
    const [gift] = (await call(t.app, 'POST', '/giving/donations', { token: c.token(['Donations.Edit']), body: { personId: donor.id, amount: 15, funds: [{ fundId: general, amount: 15 }] } })).json();
    await t.drain();
    expect(sent.filter((m) => m.to === donor.email)).toHaveLength(1);
    const deliveries = () => t.app.db.execute(sql`select job_key, church_id, state from job_deliveries where church_id = ${c.churchId}`).then((r) => (r as unknown as { rows: unknown[] }).rows);
    expect(await deliveries()).toEqual([{ job_key: `receipt-mail-${gift.id}`, church_id: c.churchId, state: 'done' }]);
    // the outbox sends the finished job again, as it does with a job Redis no longer knows
    await t.app.db.execute(sql`update job_outbox set state = 'pending', claimed_by = null where job_key = ${`receipt-mail-${gift.id}`}`);
    await t.deps.queue.sweep();
    await t.drain();
    // and the same job enqueued again under a new outbox row (a second hand-over of its data)
    const [job] = await outbox('giving.receiptMail', c.churchId);
    await t.deps.queue.enqueue(receiptMailJob, job!.data as never);
    await t.drain();
    expect((await outbox('giving.receiptMail', c.churchId)).length).toBeGreaterThanOrEqual(1);
    expect(sent.filter((m) => m.to === donor.email)).toHaveLength(1);
    expect(await deliveries()).toEqual([{ job_key: `receipt-mail-${gift.id}`, church_id: c.churchId, state: 'done' }]);
  });

  it('lets a failed mail go, so the retry sends it once', async () => {
    const c = makeChurch();
    const donor = makePerson('Fay', 'Fail', `fay-${c.churchId}@example.test`, c.churchId);
    const [general] = await makeFunds(t, c.token(['Donations.Edit']), ['General']);
    failOnce.add(donor.email!);
    await call(t.app, 'POST', '/giving/donations', { token: c.token(['Donations.Edit']), body: { personId: donor.id, amount: 15, funds: [{ fundId: general, amount: 15 }] } });
    await t.drain();
    expect(failOnce.has(donor.email!)).toBe(false);
    expect(sent.filter((m) => m.to === donor.email)).toHaveLength(1);
  });

  it('writes no receipt when the save does not commit', async () => {
    const c = makeChurch();
    const donor = makePerson('Nora', 'None', `nora-${c.churchId}@example.test`, c.churchId);
    const [general] = await makeFunds(t, c.token(['Donations.Edit']), ['General']);
    const res = await call(t.app, 'POST', '/giving/donations', {
      token: c.token(['Donations.Edit']),
      body: [
        { personId: donor.id, amount: 15 },
        { personId: donor.id, amount: 10, funds: [{ fundId: general, amount: 20 }] },
      ],
    });
    expect(res.statusCode).toBe(400);
    await t.drain();
    expect(await outbox('giving.receipt', c.churchId)).toEqual([]);
    expect(sent.filter((m) => m.to === donor.email)).toEqual([]);
  });
});
