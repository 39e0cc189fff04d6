import { call } from '@church/common/testing';
import { makeChurch, makeFunds, makePerson, useGiving } from '../setup';

const t = useGiving();

describe('donation lists', () => {
  it('answer each donation exactly as its own record reads, newest first, for a person, a batch, both and /my', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit', 'Donations.View']);
    const [general, missions] = await makeFunds(t, edit, ['General', 'Missions']);
    const batch = (await call(t.app, 'POST', '/giving/donationbatches', { token: edit, body: { name: 'Sunday', batchDate: '2025-03-02' } })).json()[0];
    const ada = makePerson('Ada', 'Lovelace');
    const saved = await call(t.app, 'POST', '/giving/donations', {
      token: edit,
      body: [
        { personId: ada.id, batchId: batch.id, donationDate: '2025-03-02T10:00:00.123Z', amount: 0.3, method: 'check', methodDetails: '1001', notes: 'say "thanks" \\ ok', funds: [{ fundId: general, amount: 0.1 }, { fundId: missions, amount: 0.2 }] },
        { personId: ada.id, donationDate: '2025-03-09', amount: 100, status: 'pending' },
        { personId: ada.id, donationDate: '2024-12-31T23:59:59Z', amount: 12.5, funds: [{ fundId: general, amount: 12.5 }] },
        { batchId: batch.id, donationDate: '2025-03-02', amount: 7, funds: [{ fundId: missions, amount: 7 }] },
      ],
    });
    expect(saved.statusCode).toBe(200);
    const [d1, d2, d3, d4] = saved.json() as Array<{ id: string }>;
    const record = async (id: string) => (await call(t.app, 'GET', `/giving/donations/${id}`, { token: edit })).json();
    const records = async (...ids: string[]) => Promise.all(ids.map(record));
    const byFund = (d: { funds: Array<{ fundId: string }> }) => ({ ...d, funds: [...d.funds].sort((a, b) => a.fundId.localeCompare(b.fundId)) });

    const list = await call(t.app, 'GET', `/giving/donations?personId=${ada.id}`, { token: edit });
    expect(list.statusCode).toBe(200);
    expect(list.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(list.json().map(byFund)).toEqual((await records(d2!.id, d1!.id, d3!.id)).map(byFund));
    expect(list.json()[1]).toMatchObject({ donationDate: '2025-03-02T10:00:00.123Z', amount: 0.3, fee: 0, refundedAmount: 0, notes: 'say "thanks" \\ ok', batchId: batch.id });
    expect(list.json()[0]).toMatchObject({ status: 'pending', funds: [] });

    const byBatch = await call(t.app, 'GET', `/giving/donations?batchId=${batch.id}`, { token: edit });
    expect(byBatch.json().map((d: { id: string }) => d.id).sort()).toEqual([d1!.id, d4!.id].sort());
    expect((await call(t.app, 'GET', `/giving/donations?batchId=${batch.id}&personId=${ada.id}`, { token: edit })).json().map((d: { id: string }) => d.id)).toEqual([d1!.id]);
    expect((await call(t.app, 'GET', '/giving/donations', { token: edit })).json()).toHaveLength(4);
    const mine = await call(t.app, 'GET', '/giving/donations/my', { token: c.token([], { personId: ada.id }) });
    expect(mine.json().map(byFund)).toEqual(list.json().map(byFund));

    // Nobody's gifts, and another church's view: empty lists.
    expect((await call(t.app, 'GET', `/giving/donations?personId=${makePerson().id}`, { token: edit })).json()).toEqual([]);
    const other = makeChurch();
    expect((await call(t.app, 'GET', `/giving/donations?personId=${ada.id}`, { token: other.token(['Donations.View']) })).json()).toEqual([]);
  });

  it('lists a gift whose text is too long for the covering index, and escapes text as the record does', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit', 'Donations.View']);
    const [general, missions] = await makeFunds(t, edit, ['General', 'Missions']);
    const ada = makePerson('Ada', 'Lovelace');
    // 3,000 characters of 3-byte text (9,000 bytes, beyond a btree entry) and control characters, quotes, emoji
    const long = `${'€'.repeat(3000)} "end"`;
    const odd = 'tab\t nl\n ctl\u0001 quote" back\\ slash/ 😀 ü';
    const saved = await call(t.app, 'POST', '/giving/donations', {
      token: edit,
      body: [
        { personId: ada.id, donationDate: '2025-01-05', amount: 40, notes: long, methodDetails: odd, funds: [{ fundId: missions, amount: 30 }, { fundId: general, amount: 10 }] },
        { personId: ada.id, donationDate: '2025-01-12', amount: 5, method: odd, funds: [{ fundId: general, amount: 5 }] },
      ],
    });
    expect(saved.statusCode).toBe(200);
    const [longGift, oddGift] = saved.json() as Array<{ id: string }>;
    const list = await call(t.app, 'GET', `/giving/donations?personId=${ada.id}`, { token: edit });
    expect(list.statusCode).toBe(200);
    const records = await Promise.all([oddGift!.id, longGift!.id].map(async (id) => (await call(t.app, 'GET', `/giving/donations/${id}`, { token: edit })).json()));
    // the funds in the order they were posted, as the record lists them
    expect(list.json()).toEqual(records);
    expect(list.json()[1]).toMatchObject({ notes: long, methodDetails: odd, funds: [{ fundId: missions, amount: 30 }, { fundId: general, amount: 10 }] });
    expect(list.json()[0]).toMatchObject({ method: odd });
  });

  it("follows a donation's change of person and an allocation's move to another donation", async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit', 'Donations.View']);
    const [general, missions] = await makeFunds(t, edit, ['General', 'Missions']);
    const ada = makePerson('Ada', 'Lovelace');
    const grace = makePerson('Grace', 'Hopper');
    const saved = await call(t.app, 'POST', '/giving/donations', {
      token: edit,
      body: [
        { personId: ada.id, donationDate: '2025-02-02', amount: 20, funds: [{ fundId: general, amount: 20 }] },
        { personId: grace.id, donationDate: '2025-02-09', amount: 40 },
        { donationDate: '2025-02-16', amount: 9 },
      ],
    });
    const [adaGift, graceGift, guestGift] = saved.json() as Array<{ id: string }>;
    const list = async (personId: string) => (await call(t.app, 'GET', `/giving/donations?personId=${personId}`, { token: edit })).json() as Array<{ id: string; personId: string; funds: Array<{ id: string; fundId: string; amount: number }> }>;

    // allocations added on their own (the two-call entry) are listed with their donation
    const added = await call(t.app, 'POST', '/giving/funddonations', { token: edit, body: [{ donationId: graceGift!.id, fundId: missions, amount: 25 }, { donationId: guestGift!.id, fundId: general, amount: 9 }] });
    expect(added.statusCode).toBe(200);
    const [graceFund, guestFund] = added.json() as Array<{ id: string }>;
    expect((await list(grace.id)).map((d) => d.funds)).toEqual([[{ id: graceFund!.id, fundId: missions, fundName: 'Missions', amount: 25 }]]);

    // Ada's gift becomes Grace's: it leaves Ada's list and joins Grace's with its allocation
    expect((await call(t.app, 'POST', '/giving/donations', { token: edit, body: { id: adaGift!.id, personId: grace.id } })).statusCode).toBe(200);
    expect(await list(ada.id)).toEqual([]);
    const graces = await list(grace.id);
    expect(graces.map((d) => [d.id, d.personId, d.funds.map((f) => f.amount)])).toEqual([
      [graceGift!.id, grace.id, [25]],
      [adaGift!.id, grace.id, [20]],
    ]);

    // the guest's allocation moved to Grace's gift is listed there; the guest gift given to Ada brings none
    expect((await call(t.app, 'POST', '/giving/funddonations', { token: edit, body: { id: guestFund!.id, donationId: graceGift!.id } })).statusCode).toBe(200);
    expect((await list(grace.id))[0]!.funds.map((f) => f.id)).toEqual([graceFund!.id, guestFund!.id]);
    expect((await call(t.app, 'POST', '/giving/donations', { token: edit, body: { id: guestGift!.id, personId: ada.id } })).statusCode).toBe(200);
    expect((await list(ada.id)).map((d) => [d.id, d.funds])).toEqual([[guestGift!.id, []]]);
  });
});
