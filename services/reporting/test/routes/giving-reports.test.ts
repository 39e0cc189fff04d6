import { call } from '@church/common/testing';
import { insert, makeChurch, useReporting } from '../setup';

const h = useReporting(['membership', 'giving']);

/**
 * One church's gifts around January 2024: funds General, Building (both deductible) and Coffee (not); Ann and
 * Bob give; one anonymous gift, one pending bank debit, one partly refunded gift, one gift on 31 December 2023;
 * another church gives too.
 */
async function seed() {
  const c = makeChurch();
  const m = h.sources.membership!;
  const g = h.sources.giving!;
  const churchId = c.churchId;
  const ann = await insert(m, 'people', { churchId, firstName: 'Ann', lastName: 'Adams', displayName: 'Ann Adams', address1: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701' });
  const bob = await insert(m, 'people', { churchId, firstName: 'Bob', lastName: 'Brown', displayName: 'Bob Brown' });
  const general = await insert(g, 'funds', { churchId, name: 'General' });
  const building = await insert(g, 'funds', { churchId, name: 'Building' });
  const coffee = await insert(g, 'funds', { churchId, name: 'Coffee', taxDeductible: false });
  const gift = async (church: string, personId: string | null, at: string, amount: string, allocations: Array<[string, string]>, extra: Record<string, unknown> = {}) => {
    const donationId = await insert(g, 'donations', { churchId: church, personId, donationDate: new Date(at), amount, ...extra });
    for (const [fundId, part] of allocations) await insert(g, 'fund_donations', { churchId: church, donationId, fundId, amount: part });
  };
  await gift(churchId, ann, '2024-01-07T15:00:00Z', '100.00', [[general, '100.00']]);
  await gift(churchId, bob, '2024-01-09T10:00:00Z', '55.50', [[general, '50.00'], [building, '5.50']]);
  await gift(churchId, ann, '2024-01-16T12:00:00Z', '20.10', [[coffee, '20.10']]);
  await gift(churchId, ann, '2024-02-20T12:00:00Z', '250.00', [[building, '250.00']], { refundedAmount: '50.00' });
  await gift(churchId, bob, '2024-01-08T12:00:00Z', '999.00', [[general, '999.00']], { status: 'pending' });
  await gift(churchId, null, '2024-01-07T16:00:00Z', '10.00', [[general, '10.00']]);
  await gift(churchId, ann, '2023-12-31T23:30:00Z', '40.00', [[general, '40.00']]);
  const other = makeChurch();
  const otherFund = await insert(g, 'funds', { churchId: other.churchId, name: 'General' });
  await gift(other.churchId, null, '2024-01-07T12:00:00Z', '500.00', [[otherFund, '500.00']]);
  return { c, other, ann, bob, funds: { general, building, coffee } };
}

let s: Awaited<ReturnType<typeof seed>>;
beforeAll(async () => {
  s = await seed();
});

const run = (key: string, query: Record<string, string>, token: string) => call(h.app, 'GET', `/reporting/reports/${key}/run?${new URLSearchParams(query)}`, { token });
const utcDay = (d: Date) => d.toISOString().slice(0, 10);

describe('GET /reporting/reports/donationSummary/run', () => {
  it('sums completed gifts per week and fund', async () => {
    const res = await run('donationSummary', { startDate: '2024-01-01', endDate: '2024-03-31' }, s.c.token(['Donations.View Summary']));
    expect(res.statusCode).toBe(200);
    expect(res.json().table).toEqual([
      { week: '2024-01-07', fundId: s.funds.building, fundName: 'Building', taxDeductible: true, totalAmount: 5.5, donations: 1 },
      { week: '2024-01-07', fundId: s.funds.general, fundName: 'General', taxDeductible: true, totalAmount: 160, donations: 3 },
      { week: '2024-01-14', fundId: s.funds.coffee, fundName: 'Coffee', taxDeductible: false, totalAmount: 20.1, donations: 1 },
      { week: '2024-02-18', fundId: s.funds.building, fundName: 'Building', taxDeductible: true, totalAmount: 250, donations: 1 },
    ]);
  });

  it('defaults to this year, and refuses callers without a donations permission', async () => {
    const res = await run('donationSummary', {}, s.c.token(['Donations.View']));
    expect(res.json().parameters).toEqual({ startDate: `${new Date().getUTCFullYear()}-01-01`, endDate: utcDay(new Date()) });
    expect((await run('donationSummary', {}, s.c.token(['Attendance.View', 'People.View']))).statusCode).toBe(401);
  });
});

describe('GET /reporting/reports/donationDashboard*/run', () => {
  it('weekly: every week from the start’s Sunday, empty weeks included, net of refunds', async () => {
    const res = await run('donationDashboardWeekly', { startDate: '2024-01-01', endDate: '2024-01-20' }, s.c.token(['Donations.View Summary']));
    expect(res.json().table).toEqual([
      { period: '2023-12-31', totalAmount: 0, donations: 0, donors: 0 },
      { period: '2024-01-07', totalAmount: 165.5, donations: 3, donors: 2 },
      { period: '2024-01-14', totalAmount: 20.1, donations: 1, donors: 1 },
    ]);
  });

  it('monthly and quarterly', async () => {
    const monthly = await run('donationDashboardMonthly', { startDate: '2023-12-01', endDate: '2024-03-15' }, s.c.token(['Donations.View']));
    expect(monthly.json().table).toEqual([
      { period: '2023-12-01', totalAmount: 40, donations: 1, donors: 1 },
      { period: '2024-01-01', totalAmount: 185.6, donations: 4, donors: 2 },
      { period: '2024-02-01', totalAmount: 200, donations: 1, donors: 1 },
      { period: '2024-03-01', totalAmount: 0, donations: 0, donors: 0 },
    ]);
    const quarterly = await run('donationDashboardQuarterly', { startDate: '2023-10-01', endDate: '2024-06-30' }, s.c.token(['Donations.View']));
    expect(quarterly.json().table).toEqual([
      { period: '2023-10-01', totalAmount: 40, donations: 1, donors: 1 },
      { period: '2024-01-01', totalAmount: 385.6, donations: 5, donors: 2 },
      { period: '2024-04-01', totalAmount: 0, donations: 0, donors: 0 },
    ]);
    const other = await run('donationDashboardQuarterly', { startDate: '2024-01-01', endDate: '2024-03-31', churchId: s.c.churchId }, s.other.token(['Donations.View']));
    expect(other.json().table).toEqual([{ period: '2024-01-01', totalAmount: 500, donations: 1, donors: 0 }]);
  });

  it('defaults to the last 12 weeks, 12 months and 8 quarters up to today', async () => {
    const now = new Date();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const weekly = await run('donationDashboardWeekly', {}, s.c.token(['Donations.View']));
    const firstSunday = utcDay(new Date(today - (now.getUTCDay() + 77) * 86_400_000));
    expect(weekly.json().parameters).toEqual({ startDate: firstSunday, endDate: utcDay(now) });
    expect(weekly.json().table).toHaveLength(12);
    expect(weekly.json().table[0].period).toBe(firstSunday);
    const monthly = await run('donationDashboardMonthly', {}, s.c.token(['Donations.View']));
    expect(monthly.json().table).toHaveLength(12);
    const quarterly = await run('donationDashboardQuarterly', {}, s.c.token(['Donations.View']));
    expect(quarterly.json().table).toHaveLength(8);
    expect(quarterly.json().parameters.startDate).toBe(utcDay(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (now.getUTCMonth() % 3) - 21, 1))));
  });
});

describe('GET /reporting/reports/donationsByPerson/run', () => {
  it('gives each donor’s year per fund with their address, without anonymous, pending or other years’ gifts', async () => {
    const res = await run('donationsByPerson', { year: '2024' }, s.c.token(['Donations.View', 'People.View']));
    expect(res.statusCode).toBe(200);
    const address = { email: null, address1: '1 Main St', address2: null, city: 'Springfield', state: 'IL', zip: '62701' };
    const annRow = { personId: s.ann, displayName: 'Ann Adams', firstName: 'Ann', lastName: 'Adams', ...address };
    const bobRow = { personId: s.bob, displayName: 'Bob Brown', firstName: 'Bob', lastName: 'Brown', email: null, address1: null, address2: null, city: null, state: null, zip: null };
    expect(res.json().table).toEqual([
      { ...annRow, fundId: s.funds.building, fundName: 'Building', taxDeductible: true, donations: 1, totalAmount: 250 },
      { ...annRow, fundId: s.funds.coffee, fundName: 'Coffee', taxDeductible: false, donations: 1, totalAmount: 20.1 },
      { ...annRow, fundId: s.funds.general, fundName: 'General', taxDeductible: true, donations: 1, totalAmount: 100 },
      { ...bobRow, fundId: s.funds.building, fundName: 'Building', taxDeductible: true, donations: 1, totalAmount: 5.5 },
      { ...bobRow, fundId: s.funds.general, fundName: 'General', taxDeductible: true, donations: 1, totalAmount: 50 },
    ]);
    const tree = res.json().outputs[0].nodes;
    expect(tree.map((n: { value: string; rows: unknown[] }) => [n.value, n.rows.length])).toEqual([
      [s.ann, 3],
      [s.bob, 2],
    ]);
    const lastYear = await run('donationsByPerson', { year: '2023' }, s.c.token(['Donations.View', 'People.View']));
    expect(lastYear.json().table.map((r: { displayName: string; totalAmount: number }) => [r.displayName, r.totalAmount])).toEqual([['Ann Adams', 40]]);
  });

  it('needs both donations and people permissions, and a sensible year', async () => {
    expect((await run('donationsByPerson', { year: '2024' }, s.c.token(['Donations.View']))).statusCode).toBe(401);
    expect((await run('donationsByPerson', { year: '2024' }, s.c.token(['Donations.View Summary', 'People.View']))).statusCode).toBe(401);
    const bad = await run('donationsByPerson', { year: '1800' }, s.c.token('all'));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([{ msg: 'year must be between 1900 and 2200', param: 'year', location: 'query' }]);
    const word = await run('donationsByPerson', { year: 'last' }, s.c.token('all'));
    expect(word.json().errors[0]).toEqual({ msg: 'year must be a whole number', param: 'year', location: 'query' });
  });
});
