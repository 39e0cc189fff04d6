import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { call, readMailbox } from '@church/common/testing';
import { rowsOf } from '@church/common';
import { giving } from '../../src/app';
import { applyWebhookEvent } from '../../src/domain/webhook-effects';
import { makeChurch, makeFunds, makeStripeGateway, deliver, useGiving } from '../setup';

const t = useGiving();

type Total = { fundId: string; day: string; total: string; count: number };

/** The kept daily totals of a church summed over their slots (keys that fell back to zero left out), amounts as exact decimal text. */
async function kept(churchId: string): Promise<Total[]> {
  return rowsOf<Total>(
    await t.app.db.execute(sql`
      select fund_id as "fundId", day::text as day, sum(total_amount)::text as total, sum(gift_count)::int as count
        from fund_day_totals where church_id = ${churchId}
       group by fund_id, day having sum(gift_count) <> 0 or sum(total_amount) <> 0
       order by fund_id, day`),
  );
}

/** The same totals summed from scratch over the allocations of complete donations. */
async function fromScratch(churchId: string): Promise<Total[]> {
  return rowsOf<Total>(
    await t.app.db.execute(sql`
      select fd.fund_id as "fundId", ((d.donation_date at time zone 'UTC')::date)::text as day, sum(fd.amount)::numeric(14,2)::text as total, count(*)::int as count
        from fund_donations fd join donations d on d.church_id = fd.church_id and d.id = fd.donation_id
       where fd.church_id = ${churchId} and d.status = 'complete'
       group by 1, 2 order by 1, 2`),
  );
}

async function expectKept(churchId: string, expected?: Total[]) {
  const rows = await kept(churchId);
  expect(rows).toEqual(await fromScratch(churchId));
  if (expected) expect(rows).toEqual([...expected].sort((a, b) => (a.fundId === b.fundId ? a.day.localeCompare(b.day) : a.fundId < b.fundId ? -1 : 1)));
}

describe('kept daily fund totals (fund_day_totals)', () => {
  it('stay equal to a from-scratch sum on every write path, in one church only', async () => {
    // Another church with a gift of its own: its totals must stay untouched throughout.
    const other = makeChurch();
    const otherEdit = other.token(['Donations.Edit']);
    const [otherFund] = await makeFunds(t, otherEdit, ['General']);
    await call(t.app, 'POST', '/giving/donations', { token: otherEdit, body: { donationDate: '2025-03-02', amount: 9.99, funds: [{ fundId: otherFund, amount: 9.99 }] } });
    const otherBefore = await kept(other.churchId);
    expect(otherBefore).toEqual([{ fundId: otherFund, day: '2025-03-02', total: '9.99', count: 1 }]);

    const c = makeChurch();
    const edit = c.token(['Donations.Edit', 'Donations.View', 'Donations.ViewSummary']);
    const [general, missions] = await makeFunds(t, edit, ['General', 'Missions']);
    const batch = (await call(t.app, 'POST', '/giving/donationbatches', { token: edit, body: { name: 'Sunday', batchDate: '2025-03-02' } })).json()[0];
    const saved = await call(t.app, 'POST', '/giving/donations', {
      token: edit,
      body: [
        { donationDate: '2025-03-02T10:00:00Z', amount: 0.5, funds: [{ fundId: general, amount: 0.1 }, { fundId: missions, amount: 0.2 }] },
        // 23:30 UTC is still the 2nd; two allocations to one fund are two gifts
        { donationDate: '2025-03-02T23:30:00Z', amount: 0.3, funds: [{ fundId: general, amount: 0.1 }, { fundId: general, amount: 0.2 }] },
        { batchId: batch.id, donationDate: '2025-03-03T09:00:00Z', amount: 1, funds: [{ fundId: general, amount: 0.7 }] },
        { batchId: batch.id, donationDate: '2025-03-03T09:00:00Z', amount: 2, funds: [{ fundId: missions, amount: 2 }] },
        { donationDate: '2025-03-04T09:00:00Z', amount: 6, status: 'failed', funds: [{ fundId: general, amount: 5 }] },
      ],
    });
    expect(saved.statusCode).toBe(200);
    const [d1, d2, d3, , d5] = saved.json() as Array<{ id: string; funds: Array<{ id: string; fundId: string }> }>;
    await expectKept(c.churchId, [
      { fundId: general, day: '2025-03-02', total: '0.40', count: 3 },
      { fundId: missions, day: '2025-03-02', total: '0.20', count: 1 },
      { fundId: general, day: '2025-03-03', total: '0.70', count: 1 },
      { fundId: missions, day: '2025-03-03', total: '2.00', count: 1 },
    ]);

    // An allocation's amount and fund change (through the fund donations route).
    const d1General = d1!.funds.find((f) => f.fundId === general)!.id;
    expect((await call(t.app, 'POST', '/giving/funddonations', { token: edit, body: { id: d1General, amount: 0.15 } })).statusCode).toBe(200);
    await expectKept(c.churchId);
    expect((await call(t.app, 'POST', '/giving/funddonations', { token: edit, body: { id: d1General, fundId: missions, amount: 0.25 } })).statusCode).toBe(200);
    await expectKept(c.churchId, [
      { fundId: general, day: '2025-03-02', total: '0.30', count: 2 },
      { fundId: missions, day: '2025-03-02', total: '0.45', count: 2 },
      { fundId: general, day: '2025-03-03', total: '0.70', count: 1 },
      { fundId: missions, day: '2025-03-03', total: '2.00', count: 1 },
    ]);
    // A new allocation of an existing donation, then the failed donation's (not counted).
    expect((await call(t.app, 'POST', '/giving/funddonations', { token: edit, body: { donationId: d3!.id, fundId: missions, amount: 0.3 } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/giving/funddonations', { token: edit, body: { donationId: d5!.id, fundId: missions, amount: 1 } })).statusCode).toBe(200);
    await expectKept(c.churchId);

    // Status complete -> failed -> complete, then a new date.
    await call(t.app, 'POST', '/giving/donations', { token: edit, body: { id: d1!.id, status: 'failed' } });
    await expectKept(c.churchId, [
      { fundId: general, day: '2025-03-02', total: '0.30', count: 2 },
      { fundId: general, day: '2025-03-03', total: '0.70', count: 1 },
      { fundId: missions, day: '2025-03-03', total: '2.30', count: 2 },
    ]);
    await call(t.app, 'POST', '/giving/donations', { token: edit, body: { id: d1!.id, status: 'complete' } });
    await expectKept(c.churchId);
    await call(t.app, 'POST', '/giving/donations', { token: edit, body: { id: d1!.id, donationDate: '2025-03-10' } });
    await expectKept(c.churchId, [
      { fundId: general, day: '2025-03-02', total: '0.30', count: 2 },
      { fundId: general, day: '2025-03-03', total: '0.70', count: 1 },
      { fundId: missions, day: '2025-03-03', total: '2.30', count: 2 },
      { fundId: missions, day: '2025-03-10', total: '0.45', count: 2 },
    ]);
    // The failed donation turning complete brings its allocations in; a note changes nothing.
    await call(t.app, 'POST', '/giving/donations', { token: edit, body: [{ id: d5!.id, status: 'complete' }, { id: d2!.id, notes: 'envelope' }] });
    await expectKept(c.churchId);
    // Replacing a donation's allocations (delete, then insert, in one transaction).
    await call(t.app, 'POST', '/giving/donations', { token: edit, body: { id: d2!.id, funds: [{ fundId: missions, amount: 0.3 }] } });
    await expectKept(c.churchId);

    // Deleting an allocation, a donation, then a batch (its donations, then their allocations).
    const d3Allocations = (await call(t.app, 'GET', `/giving/funddonations?donationId=${d3!.id}`, { token: edit })).json() as Array<{ id: string }>;
    expect((await call(t.app, 'DELETE', `/giving/funddonations/${d3Allocations[0]!.id}`, { token: edit })).statusCode).toBe(200);
    await expectKept(c.churchId);
    expect((await call(t.app, 'DELETE', `/giving/donations/${d5!.id}`, { token: edit })).statusCode).toBe(200);
    await expectKept(c.churchId);
    expect((await call(t.app, 'DELETE', `/giving/donationbatches/${batch.id}`, { token: edit })).json()).toEqual({ deletedDonations: 2 });
    await expectKept(c.churchId, [
      { fundId: missions, day: '2025-03-02', total: '0.30', count: 1 },
      { fundId: missions, day: '2025-03-10', total: '0.45', count: 2 },
    ]);

    // Writes outside the routes: a donation with its allocations in one statement (counted once), several
    // donations changed in one statement.
    const both = randomUUID();
    await t.app.db.execute(sql`
      with d as (insert into donations (id, church_id, donation_date, amount) values (${both}, ${c.churchId}, '2025-03-02T08:00:00Z', 0.30) returning id, church_id)
      insert into fund_donations (id, church_id, donation_id, fund_id, amount)
      select x.id, d.church_id, d.id, x.fund_id, x.amount from d, (values (${randomUUID()}::uuid, ${general}::uuid, 0.10), (${randomUUID()}::uuid, ${general}::uuid, 0.20)) x(id, fund_id, amount)`);
    await expectKept(c.churchId, [
      { fundId: general, day: '2025-03-02', total: '0.30', count: 2 },
      { fundId: missions, day: '2025-03-02', total: '0.30', count: 1 },
      { fundId: missions, day: '2025-03-10', total: '0.45', count: 2 },
    ]);
    await t.app.db.execute(sql`update donations set status = case when status = 'complete' then 'refunded' else 'complete' end where church_id = ${c.churchId}`);
    await expectKept(c.churchId);
    await t.app.db.execute(sql`update donations set status = 'complete', donation_date = donation_date + interval '1 day' where church_id = ${c.churchId}`);
    await expectKept(c.churchId);

    expect(await kept(other.churchId)).toEqual(otherBefore);
    expect(await fromScratch(other.churchId)).toEqual(otherBefore);
  });

  it('add up under concurrent writers to one fund and day', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit']);
    const [general] = await makeFunds(t, edit, ['General']);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(t.app, 'POST', '/giving/donations', { token: edit, body: { donationDate: '2025-03-02', amount: 0.3, funds: [{ fundId: general, amount: 0.1 }, { fundId: general, amount: 0.2 }] } })),
    );
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    await expectKept(c.churchId, [{ fundId: general, day: '2025-03-02', total: '6.00', count: 40 }]);
  });

  it('let a writer add to a fund and day another open transaction holds (PostgreSQL: a second slot)', async () => {
    if (t.deps.database.kind !== 'postgres') return; // PGlite is one connection: no two open transactions
    const c = makeChurch();
    const edit = c.token(['Donations.Edit']);
    const [general] = await makeFunds(t, edit, ['General']);
    const gift = async (amount: number) =>
      (await call(t.app, 'POST', '/giving/donations', { token: edit, body: { donationDate: '2025-03-02', amount, funds: [{ fundId: general, amount }] } })).json()[0].id as string;
    await gift(0.1);
    const [a, b] = [await gift(0.2), await gift(0.3)];
    // The first transaction holds the key's row (its status change added to it) while a second one, on another
    // connection, changes another donation of the same fund and day: it must not wait for the first (a lock
    // wait would end in lock_timeout's error), and both count once committed.
    await t.app.db.transaction(async (first) => {
      await first.execute(sql`update donations set status = 'failed' where id = ${a}`);
      await t.app.db.transaction(async (second) => {
        await second.execute(sql`set local lock_timeout = '5s'`);
        await second.execute(sql`update donations set status = 'failed' where id = ${b}`);
      });
    });
    await expectKept(c.churchId, [{ fundId: general, day: '2025-03-02', total: '0.10', count: 1 }]);
    const slots = rowsOf<{ n: number }>(await t.app.db.execute(sql`select count(*)::int as n from fund_day_totals where church_id = ${c.churchId}`));
    expect(slots[0]!.n).toBe(2);
  });

  it('count gifts received by webhook, once per payment, and receipt each', async () => {
    const c = makeChurch();
    const admin = c.token(['Settings.Edit', 'Donations.Edit']);
    await makeStripeGateway(t, admin);
    const [general, missions] = await makeFunds(t, admin, ['General', 'Missions']);
    const created = Math.floor(Date.parse('2025-03-02T15:00:00Z') / 1000);
    const event = (n: number) => ({
      id: `evt_totals_${n}`,
      type: 'payment_intent.succeeded',
      created,
      data: {
        object: { id: `pi_totals_${n}`, object: 'payment_intent', amount: 30, amount_received: 30, currency: 'usd', payment_method_types: ['card'], metadata: { churchId: c.churchId, funds: `${general}:10,${missions}:20`, email: `guest${n}-${c.churchId}@example.test` } },
      },
    });
    for (let pass = 0; pass < 2; pass++) {
      for (let n = 0; n < 3; n++) expect((await deliver(t, c.churchId, event(n))).statusCode).toBe(200);
      await t.drain();
    }
    await expectKept(c.churchId, [
      { fundId: general, day: '2025-03-02', total: '0.30', count: 3 },
      { fundId: missions, day: '2025-03-02', total: '0.60', count: 3 },
    ]);
    // A job run again for a processed event (a redelivery after a crash) writes nothing.
    const events = rowsOf<{ id: string }>(await t.app.db.execute(sql`select id from webhook_events where church_id = ${c.churchId}`));
    expect(events).toHaveLength(3);
    await applyWebhookEvent(giving.deps(t.app), events[0]!.id);
    const counted = rowsOf<{ donations: number; logs: number }>(
      await t.app.db.execute(sql`select (select count(*)::int from donations where church_id = ${c.churchId}) as donations, (select count(*)::int from event_logs where church_id = ${c.churchId}) as logs`),
    );
    expect(counted[0]).toEqual({ donations: 3, logs: 3 });
    // Three receipts, one to each guest, with the church's name asked of membership once.
    expect(readMailbox(t.config).filter((m) => m.to.endsWith(`-${c.churchId}@example.test`))).toHaveLength(3);
    expect(t.internal.calls.filter((x) => x.path === '/membership/internal/church' && (x.body as { churchId: string }).churchId === c.churchId)).toHaveLength(1);
  });

  it('answer the summary and the public total from the kept totals, counting gifts per fund', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit', 'Donations.ViewSummary']);
    const [general] = await makeFunds(t, edit, ['General']);
    const saved = await call(t.app, 'POST', '/giving/donations', {
      token: edit,
      body: [
        { donationDate: '2025-03-02T10:00:00Z', amount: 0.3, funds: [{ fundId: general, amount: 0.1 }, { fundId: general, amount: 0.2 }] },
        { donationDate: '2025-03-05T10:00:00Z', amount: 0.1, funds: [{ fundId: general, amount: 0.1 }] },
      ],
    });
    const summary = async () => (await call(t.app, 'GET', '/giving/donations/summary?startDate=2025-03-01&endDate=2025-03-31', { token: edit })).json();
    const total = async () => (await call(t.app, 'GET', `/giving/funds/public/${c.churchId}/${general}/total?startDate=2025-03-01&endDate=2025-03-31`)).json();
    expect(await summary()).toEqual([{ week: '2025-03-02', fund: 'General', totalAmount: 0.4, count: 3 }]);
    expect(await total()).toEqual({ fundId: general, totalAmount: 0.4, donationCount: 3 });
    // A week whose gifts all left (failed, deleted) is not listed; the total falls back to zero.
    for (const d of saved.json() as Array<{ id: string }>) await call(t.app, 'POST', '/giving/donations', { token: edit, body: { id: d.id, status: 'failed' } });
    expect(await summary()).toEqual([]);
    expect(await total()).toEqual({ fundId: general, totalAmount: 0, donationCount: 0 });
    // A removed fund answers 404, as an unknown one does.
    await call(t.app, 'DELETE', `/giving/funds/${general}`, { token: edit });
    expect((await call(t.app, 'GET', `/giving/funds/public/${c.churchId}/${general}/total`)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/giving/funds/public/${c.churchId}/${randomUUID()}/total`)).statusCode).toBe(404);
  });
});
