import { randomUUID } from 'node:crypto';
import { call, readMailbox } from '@church/common/testing';
import { eq } from 'drizzle-orm';
import { donations, fundDonations } from '../../src/db/schema';
import { makeChurch, makeFunds, makePerson, useGiving } from '../setup';

const t = useGiving();

describe('funds', () => {
  it('creates, lists to any member, hides removed and invisible ones publicly, and keeps other churches out', async () => {
    const c = makeChurch();
    const [general, hidden] = await makeFunds(t, c.token(['Donations.Edit']), ['General', 'Staff gifts']);
    await call(t.app, 'POST', '/giving/funds', { token: c.token(['Donations.Edit']), body: { id: hidden, name: 'Staff gifts', visible: false, taxDeductible: false } });
    const list = await call(t.app, 'GET', '/giving/funds', { token: c.token() });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([
      { id: general, name: 'General', taxDeductible: true, visible: true },
      { id: hidden, name: 'Staff gifts', taxDeductible: false, visible: false },
    ]);
    const pub = await call(t.app, 'GET', `/giving/funds/churchId/${c.churchId}`);
    expect(pub.json().map((f: { name: string }) => f.name)).toEqual(['General']);
    expect((await call(t.app, 'POST', '/giving/funds', { token: c.token(), body: { name: 'X' } })).statusCode).toBe(401);
    const other = makeChurch();
    expect((await call(t.app, 'GET', `/giving/funds/${general}`, { token: other.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/giving/funds/${general}`, { token: other.token(['Donations.Edit']) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/giving/funds/${general}`, { token: c.token(['Donations.Edit']) })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/giving/funds/${general}`, { token: c.token() })).statusCode).toBe(404);
  });

  it('names the missing field', async () => {
    const c = makeChurch();
    const res = await call(t.app, 'POST', '/giving/funds', { token: c.token(['Donations.Edit']), body: [{ name: 'ok' }, { name: '' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: '[1].name', location: 'body' });
  });
});

describe('batches, donations and fund donations', () => {
  it('records a batch of donations with allocations, sums them per batch, and deletes a batch with its donations in one go', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit', 'Donations.View', 'Donations.ViewSummary']);
    const [general, missions] = await makeFunds(t, edit, ['General', 'Missions']);
    const batch = (await call(t.app, 'POST', '/giving/donationbatches', { token: edit, body: { name: 'Sunday', batchDate: '2025-03-02' } })).json()[0];
    const person = makePerson('Grace', 'Hopper');
    const saved = await call(t.app, 'POST', '/giving/donations', {
      token: edit,
      body: [
        { batchId: batch.id, personId: person.id, donationDate: '2025-03-02', amount: 100.1, method: 'check', methodDetails: '1001', funds: [{ fundId: general, amount: 70.05 }, { fundId: missions, amount: 30.05 }] },
        { batchId: batch.id, donationDate: '2025-03-02', amount: 0.2, method: 'cash' },
      ],
    });
    expect(saved.statusCode).toBe(200);
    const [d1, d2] = saved.json();
    expect(d1).toMatchObject({ amount: 100.1, status: 'complete', currency: 'usd', method: 'check', personId: person.id });
    expect(d1.funds.map((f: { amount: number }) => f.amount).sort()).toEqual([30.05, 70.05]);
    // 100.10 + 0.20 summed in the database, exactly
    const batches = await call(t.app, 'GET', '/giving/donationbatches', { token: edit });
    expect(batches.json()).toEqual([{ id: batch.id, name: 'Sunday', batchDate: '2025-03-02T00:00:00.000Z', donationCount: 2, totalAmount: 100.3 }]);
    const byBatch = await call(t.app, 'GET', `/giving/donations?batchId=${batch.id}`, { token: edit });
    expect(byBatch.json()).toHaveLength(2);
    const allocations = await call(t.app, 'GET', `/giving/funddonations?donationId=${d1.id}`, { token: edit });
    expect(allocations.json()).toHaveLength(2);
    expect((await call(t.app, 'GET', `/giving/funddonations?fundName=missions`, { token: edit })).json()).toHaveLength(1);

    const del = await call(t.app, 'DELETE', `/giving/donationbatches/${batch.id}`, { token: edit });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ deletedDonations: 2 });
    expect(await t.app.db.select().from(donations).where(eq(donations.id, d2.id))).toHaveLength(0);
    expect(await t.app.db.select().from(fundDonations).where(eq(fundDonations.donationId, d1.id))).toHaveLength(0);
  });

  it('refuses a batch or fund of another church and writes nothing', async () => {
    const c = makeChurch();
    const other = makeChurch();
    const theirFund = (await makeFunds(t, other.token(['Donations.Edit']), ['Theirs']))[0];
    const res = await call(t.app, 'POST', '/giving/donations', { token: c.token(['Donations.Edit']), body: [{ amount: 5 }, { amount: 10, funds: [{ fundId: theirFund, amount: 10 }] }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: '[1].funds[0].fundId' });
    expect(await t.app.db.select().from(donations).where(eq(donations.churchId, c.churchId))).toHaveLength(0);
    const bad = await call(t.app, 'POST', '/giving/donations', { token: c.token(['Donations.Edit']), body: { amount: 10.001 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('amount');
  });

  it('lets a member read their own donations only ("own personId", /my)', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit']);
    const me = makePerson('Me', 'Myself');
    const them = makePerson('Them', 'Else');
    const [fund] = await makeFunds(t, edit, ['General']);
    await call(t.app, 'POST', '/giving/donations', { token: edit, body: [{ personId: me.id, amount: 10, funds: [{ fundId: fund, amount: 10 }] }, { personId: them.id, amount: 20, funds: [{ fundId: fund, amount: 20 }] }] });
    const mine = c.token([], { personId: me.id });
    expect((await call(t.app, 'GET', `/giving/donations?personId=${me.id}`, { token: mine })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', `/giving/donations?personId=${them.id}`, { token: mine })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/giving/donations', { token: mine })).statusCode).toBe(401);
    const my = await call(t.app, 'GET', '/giving/donations/my', { token: mine });
    expect(my.json().map((d: { amount: number }) => d.amount)).toEqual([10]);
    const myFunds = await call(t.app, 'GET', '/giving/funddonations/my', { token: mine });
    expect(myFunds.json()).toEqual([expect.objectContaining({ amount: 10, fundId: fund, fundName: 'General', personId: me.id })]);
    expect((await call(t.app, 'GET', '/giving/funddonations', { token: mine })).statusCode).toBe(401);
  });

  it('emails the donor a receipt through the queue, with the funds, the date and the church name', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit']);
    const donor = makePerson('Rosa', 'Parks');
    const [fund] = await makeFunds(t, edit, ['Building']);
    await call(t.app, 'POST', '/giving/donations', { token: edit, body: { personId: donor.id, amount: 42.5, donationDate: '2025-04-06T10:00:00Z', funds: [{ fundId: fund, amount: 42.5 }] } });
    await t.drain();
    const mail = readMailbox(t.config).filter((m) => m.to === donor.email);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.subject).toBe('Thank you for your gift to Grace Church');
    expect(mail[0]!.text).toContain('USD 42.50');
    expect(mail[0]!.text).toContain('Building: USD 42.50');
    expect(mail[0]!.text).toContain('2025-04-06');
  });

  it('answers an Idempotency-Key retry with the first answer and records once', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit']);
    const key = randomUUID();
    const first = await call(t.app, 'POST', '/giving/donations', { token: edit, body: { amount: 12 }, headers: { 'idempotency-key': key } });
    const again = await call(t.app, 'POST', '/giving/donations', { token: edit, body: { amount: 12 }, headers: { 'idempotency-key': key } });
    expect(again.statusCode).toBe(200);
    expect(again.json()[0].id).toBe(first.json()[0].id);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await t.app.db.select().from(donations).where(eq(donations.churchId, c.churchId))).toHaveLength(1);
    const other = await call(t.app, 'POST', '/giving/donations', { token: edit, body: { amount: 13 }, headers: { 'idempotency-key': key } });
    expect(other.statusCode).toBe(400);
    expect(other.json().errors[0].param).toBe('Idempotency-Key');
  });
});

describe('summary and fund totals', () => {
  it('sums complete donations to tax-deductible funds per Sunday week and fund, and per person with names', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit']);
    const [general, gift] = await makeFunds(t, edit, ['General', 'Gift shop']);
    await call(t.app, 'POST', '/giving/funds', { token: edit, body: { id: gift, name: 'Gift shop', taxDeductible: false } });
    const ada = makePerson('Ada', 'Lovelace');
    await call(t.app, 'POST', '/giving/donations', {
      token: edit,
      body: [
        // Sunday 2025-03-02 and Saturday 2025-03-08 are one week; Sunday 2025-03-09 starts the next
        { personId: ada.id, donationDate: '2025-03-02T12:00:00Z', amount: 10.1, funds: [{ fundId: general, amount: 10.1 }] },
        { personId: ada.id, donationDate: '2025-03-08T12:00:00Z', amount: 20.2, funds: [{ fundId: general, amount: 20.2 }] },
        { donationDate: '2025-03-09T12:00:00Z', amount: 5, funds: [{ fundId: general, amount: 3 }, { fundId: gift, amount: 2 }] },
        { donationDate: '2025-03-09T12:00:00Z', amount: 7, status: 'failed', funds: [{ fundId: general, amount: 7 }] },
      ],
    });
    const view = c.token(['Donations.ViewSummary']);
    const res = await call(t.app, 'GET', '/giving/donations/summary?startDate=2025-03-01&endDate=2025-03-31', { token: view });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { week: '2025-03-02', fund: 'General', totalAmount: 30.3, count: 2 },
      { week: '2025-03-09', fund: 'General', totalAmount: 3, count: 1 },
    ]);
    const byPerson = await call(t.app, 'GET', '/giving/donations/summary?startDate=2025-03-01&endDate=2025-03-31&type=person', { token: view });
    // B1Admin:src/components/reporting/ReportOutput.tsx reads per donor `personId`, `totalAmount` and `funds` as [{<fund name>: amount}]
    expect(byPerson.json()).toEqual([
      { totalAmount: 30.3, count: 2, personId: ada.id, displayName: 'Ada Lovelace', funds: [{ General: 30.3 }] },
      { totalAmount: 3, count: 1, personId: null, displayName: 'Anonymous', funds: [{ General: 3 }] },
    ]);
    expect(t.internal.calls.filter((x) => x.path === '/membership/internal/people/basic').at(-1)!.body).toEqual({ churchId: c.churchId, ids: [ada.id] });
    expect((await call(t.app, 'GET', '/giving/donations/summary', { token: c.token(['Donations.View']) })).statusCode).toBe(401);
    const bad = await call(t.app, 'GET', '/giving/donations/summary?startDate=nope', { token: view });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: 'startDate', location: 'query' });

    const total = await call(t.app, 'GET', `/giving/funds/public/${c.churchId}/${general}/total?startDate=2025-03-01&endDate=2025-03-08`);
    expect(total.json()).toEqual({ fundId: general, totalAmount: 30.3, donationCount: 2 });
    const all = await call(t.app, 'GET', `/giving/funds/public/${c.churchId}/${general}/total`);
    expect(all.json()).toEqual({ fundId: general, totalAmount: 33.3, donationCount: 3 });
    expect((await call(t.app, 'GET', `/giving/funds/public/${randomUUID()}/${general}/total`)).statusCode).toBe(404);
  });
});

describe('event log', () => {
  it('keeps entries per church, filters by type and answers 404 across churches', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit', 'Donations.ViewSummary']);
    const saved = await call(t.app, 'POST', '/giving/eventLog', { token: edit, body: [{ eventType: 'manual.note', message: 'checked the deposit' }, { eventType: 'other' }] });
    expect(saved.statusCode).toBe(200);
    const byType = await call(t.app, 'GET', '/giving/eventLog/type/manual.note', { token: edit });
    expect(byType.json()).toEqual([expect.objectContaining({ eventType: 'manual.note', message: 'checked the deposit', resolved: false })]);
    const other = makeChurch();
    expect((await call(t.app, 'GET', `/giving/eventLog/${saved.json()[0].id}`, { token: other.token(['Donations.ViewSummary']) })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/giving/eventLog', { token: other.token(['Donations.ViewSummary']) })).json()).toEqual([]);
  });
});

describe('testEmail', () => {
  it('says where the test message goes, or that no address is configured', async () => {
    const res = await call(t.app, 'GET', '/giving/donations/testEmail');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ sent: false, to: null });
  });
});
