import { sql } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { fundDonationsJson, listFundDonations, type FundDonationFilter } from '../../src/repos/fund-donations';
import { makeChurch, makeFunds, makePerson, useGiving } from '../setup';

const t = useGiving();

/** The list's whole text, however `fundDonationsJson` hands it over (one page, or pages). */
async function listText(churchId: string, f: Omit<FundDonationFilter, 'id' | 'ids'>, pageRows?: number) {
  const list = await fundDonationsJson(t.app.db, churchId, f, pageRows);
  if ('whole' in list) return list.whole;
  let text = list.first;
  for await (const part of list.rest) text += part;
  return text;
}

describe('fund donation lists (the staff app\'s statements, fund page and search; the member app\'s print page)', () => {
  it('answer every allocation of the church newest first, the same text page by page, filtered as the apps ask, never another church\'s', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit', 'Donations.View']);
    const [general, missions, meals] = await makeFunds(t, edit, ['General', 'Missions 100%_\\', 'Meals']);
    const ada = makePerson('Ada', 'Lovelace');
    const bob = makePerson('Bob', 'Babbage');
    const batch = (await call(t.app, 'POST', '/giving/donationbatches', { token: edit, body: { name: 'Sunday', batchDate: '2025-03-02' } })).json()[0];
    // Four gifts on one instant (a batch's Sunday), so the order within an instant (the allocation's id) and the
    // pages' key within it both count; a split gift; an anonymous one; gifts on the range's edges.
    const saved = await call(t.app, 'POST', '/giving/donations', {
      token: edit,
      body: [
        ...[ada, bob, ada, bob].map((who, i) => ({ personId: who.id, batchId: batch.id, donationDate: '2025-03-02', amount: 10 + i, funds: [{ fundId: general, amount: 10 + i }] })),
        { personId: ada.id, donationDate: '2025-03-09T10:00:00.123Z', amount: 0.3, funds: [{ fundId: general, amount: 0.1 }, { fundId: missions, amount: 0.2 }] },
        { donationDate: '2025-03-08T23:59:59.999Z', amount: 7, status: 'pending', funds: [{ fundId: missions, amount: 7 }] },
        { personId: bob.id, donationDate: '2025-03-01', amount: 12.5, funds: [{ fundId: meals, amount: 12.5 }] },
        { personId: ada.id, donationDate: '2024-12-31T23:59:59Z', amount: 99.99, funds: [{ fundId: general, amount: 50 }, { fundId: meals, amount: 49.99 }] },
      ],
    });
    expect(saved.statusCode).toBe(200);
    const gifts = saved.json() as Array<{ id: string }>;
    // A gateway gift's instant has microseconds (now()): the pages' key must keep them.
    await t.app.db.execute(sql`update donations set donation_date = '2025-03-02 00:00:00.000001+00' where id = ${gifts[1]!.id}`);
    // Another church's gift: never in this church's lists.
    const other = makeChurch();
    const otherEdit = other.token(['Donations.Edit', 'Donations.View']);
    const [otherFund] = await makeFunds(t, otherEdit, ['General']);
    await call(t.app, 'POST', '/giving/donations', { token: otherEdit, body: { personId: ada.id, donationDate: '2025-03-02', amount: 5, funds: [{ fundId: otherFund, amount: 5 }] } });

    // The reference: the allocations as one record each (`listFundDonations`), serialized as the route's schema does.
    const expected = async (f: FundDonationFilter) => JSON.stringify(await listFundDonations(t.app.db, c.churchId, f));
    const cases: Array<[string, FundDonationFilter]> = [
      ['', {}],
      [`?personId=${ada.id}`, { personId: ada.id }],
      [`?donationId=${gifts[4]!.id}`, { donationId: gifts[4]!.id }],
      [`?fundId=${general}&startDate=2025-03-02&endDate=2025-03-08`, { fundId: general, startDate: new Date('2025-03-02'), endDate: new Date('2025-03-08') }],
      ['?startDate=2025-03-01&endDate=2025-03-08', { startDate: new Date('2025-03-01'), endDate: new Date('2025-03-08') }],
      ['?fundName=missions%20100%25_%5C', { fundName: 'missions 100%_\\' }],
      ['?fundName=missions%25', { fundName: 'missions%' }],
    ];
    for (const [query, filter] of cases) {
      const res = await call(t.app, 'GET', `/giving/funddonations${query}`, { token: edit });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toBe(await expected(filter));
      // Page by page (2 rows a page: pages end inside the shared instant), the same text.
      for (const pageRows of [1, 2, 3]) expect(await listText(c.churchId, filter, pageRows)).toBe(res.body);
    }

    const all = (await call(t.app, 'GET', '/giving/funddonations', { token: edit })).json() as Array<Record<string, unknown> & { amount: number; donation: Record<string, unknown> }>;
    expect(all).toHaveLength(10);
    expect(all.reduce((cents, fd) => cents + Math.round(fd.amount * 100), 0)).toBe(4600 + 30 + 700 + 1250 + 9999);
    expect(Object.keys(all[0]!)).toEqual(['id', 'donationId', 'fundId', 'amount', 'fundName', 'personId', 'donationDate', 'donation']);
    expect(all.slice(0, 2).map((fd) => fd.donationId)).toEqual([gifts[4]!.id, gifts[4]!.id]);
    expect(all.find((fd) => fd.fundId === general)).toMatchObject({ donationId: gifts[4]!.id, amount: 0.1, fundName: 'General', personId: ada.id, donationDate: '2025-03-09T10:00:00.123Z' });
    expect(all[0]!.donation).toEqual({ id: gifts[4]!.id, batchId: null, personId: ada.id, donationDate: '2025-03-09T10:00:00.123Z', currency: 'usd' });
    expect(all.find((fd) => fd.donationId === gifts[5]!.id)).toMatchObject({ personId: null, amount: 7, donation: { personId: null } });
    expect(all.filter((fd) => (fd.donation as { batchId: string | null }).batchId === batch.id)).toHaveLength(4);
    expect(all.map((fd) => fd.donationId)).not.toContain(undefined);
    // Gifts of one instant by allocation id; the one a microsecond later first.
    const shared = all.filter((fd) => fd.donationDate === '2025-03-02T00:00:00.000Z').map((fd) => fd.id as string);
    expect(all.find((fd) => fd.id === shared[0])!.donationId).toBe(gifts[1]!.id);
    expect(shared.slice(1)).toEqual(shared.slice(1).sort());

    // The fund page's week and the search's range: days inclusive, UTC.
    const week = (await call(t.app, 'GET', `/giving/funddonations?fundId=${missions}&startDate=2025-03-02&endDate=2025-03-08`, { token: edit })).json();
    expect(week.map((fd: { donationId: string }) => fd.donationId)).toEqual([gifts[5]!.id]);
    const person = (await call(t.app, 'GET', `/giving/funddonations?personId=${bob.id}`, { token: edit })).json();
    expect(person.map((fd: { donationId: string }) => fd.donationId).sort()).toEqual([gifts[1]!.id, gifts[3]!.id, gifts[6]!.id].sort());

    // The member's own (the member app's print page): their allocations only, as staff reads them.
    const mine = await call(t.app, 'GET', '/giving/funddonations/my', { token: c.token([], { personId: ada.id }) });
    expect(mine.body).toBe(await expected({ personId: ada.id }));
    expect(mine.json()).toHaveLength(6);
    expect((await call(t.app, 'GET', '/giving/funddonations/my', { token: c.token([]) })).json()).toEqual([]);

    // Another church sees only its own; a member of it sees none of Ada's gifts here.
    const theirs = (await call(t.app, 'GET', '/giving/funddonations', { token: otherEdit })).json();
    expect(theirs).toHaveLength(1);
    expect(theirs[0]).toMatchObject({ fundId: otherFund, amount: 5 });
    expect((await call(t.app, 'GET', `/giving/funddonations?personId=${ada.id}`, { token: otherEdit })).json()).toHaveLength(1);
    expect((await call(t.app, 'GET', '/giving/funddonations/my', { token: other.token([], { personId: bob.id }) })).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/giving/funddonations', { token: c.token([]) })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/giving/funddonations?fundId=nope', { token: edit })).statusCode).toBe(400);
  });
});

describe('a list longer than a page', () => {
  it('is streamed page by page with the same text as one read', async () => {
    const c = makeChurch();
    const edit = c.token(['Donations.Edit', 'Donations.View']);
    const [general, missions] = await makeFunds(t, edit, ['General', 'Missions']);
    const ada = makePerson('Ada', 'Lovelace');
    // 2,600 gifts over 26 Sundays (100 an instant), each split over two funds: 5,200 allocations, past one page.
    await t.app.db.execute(sql`insert into donations (id, church_id, person_id, donation_date, amount)
      select gen_random_uuid(), ${c.churchId}::uuid, case when i % 3 = 0 then null else ${ada.id}::uuid end,
             timestamptz '2025-01-05' + (i / 100) * interval '7 days', 10 + (i % 7) * 0.25 from generate_series(0, 2599) i`);
    await t.app.db.execute(sql`insert into fund_donations (id, church_id, donation_id, fund_id, amount)
      select gen_random_uuid(), d.church_id, d.id, f.fund, f.share * d.amount from donations d
      cross join (values (${general}::uuid, 0.6), (${missions}::uuid, 0.4)) f(fund, share) where d.church_id = ${c.churchId}::uuid`);
    const res = await call(t.app, 'GET', '/giving/funddonations', { token: edit });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toBe(JSON.stringify(await listFundDonations(t.app.db, c.churchId, {})));
    const rows = res.json() as Array<{ amount: number }>;
    expect(rows).toHaveLength(5200);
    const cents = (await t.app.db.execute(sql`select (sum(amount) * 100)::bigint::text as cents from fund_donations where church_id = ${c.churchId}::uuid`)) as unknown as { rows: Array<{ cents: string }> };
    expect(rows.reduce((sum, fd) => sum + Math.round(fd.amount * 100), 0)).toBe(Number(cents.rows[0]!.cents));
    const mine = await call(t.app, 'GET', '/giving/funddonations/my', { token: c.token([], { personId: ada.id }) });
    expect(mine.body).toBe(JSON.stringify(await listFundDonations(t.app.db, c.churchId, { personId: ada.id })));
    expect(mine.json()).toHaveLength(2 * 1733);
  });
});
