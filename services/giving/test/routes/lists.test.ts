import { call } from '@church/common/testing';
import { makeChurch, makeFunds, makePerson, useGiving } from '../setup';

const t = useGiving();

describe('donation lists (JSON written by PostgreSQL)', () => {
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
});
