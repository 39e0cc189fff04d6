import { and, eq, sql } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { rowsOf } from '@church/common';
import { campaigns, pledges } from '../../src/db/schema';
import { campaignRows } from '../../src/repos/campaigns';
import { makeChurch, makeFunds, makePerson, useGiving } from '../setup';

// Campaigns and pledges (issue 34): the staff app's campaigns pages and pledge editor, the member app's campaign
// cards and own pledges, and the giving statements' pledge rows. Contract tests name the client file they serve.
const t = useGiving();

type Church = ReturnType<typeof makeChurch>;
const staff = (c: Church) => c.token(['Donations.Edit', 'Donations.View', 'Donations.ViewSummary']);
const reported = () => t.deps.queue.handedOff.filter((j) => j.name === 'membership.changes').flatMap((j) => (j.data as { records: Array<Record<string, unknown>> }).records);
const utcToday = () => new Date().toISOString().slice(0, 10);
const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

async function makeCampaign(c: Church, body: Record<string, unknown>) {
  const res = await call(t.app, 'POST', '/giving/campaigns', { token: staff(c), body: [body] });
  if (res.statusCode !== 200) throw new Error(`campaign: ${res.statusCode} ${res.body}`);
  return res.json()[0] as { id: string; fundId: string; name: string };
}

/** A donation entered by hand with its allocations; answers its id. */
async function give(c: Church, gift: { personId?: string; date: string; status?: string; funds: Array<[string, number]> }) {
  const amount = gift.funds.reduce((sum, [, a]) => sum + a * 100, 0) / 100;
  const res = await call(t.app, 'POST', '/giving/donations', {
    token: staff(c),
    body: { personId: gift.personId, donationDate: gift.date, amount, status: gift.status, funds: gift.funds.map(([fundId, a]) => ({ fundId, amount: a })) },
  });
  if (res.statusCode !== 200) throw new Error(`donation: ${res.statusCode} ${res.body}`);
  return res.json()[0].id as string;
}

describe('campaigns as the staff app keeps them', () => {
  it('B1Admin:src/donations/components/CampaignEdit.tsx creates a campaign as the editor posts it and saves back what CampaignsPage.tsx read', async () => {
    const c = makeChurch();
    const [building] = await makeFunds(t, staff(c), ['Building']);
    // the editor's new campaign: `{name, startDate}` from the page, the form's values, endDate null for "ongoing"
    const created = await call(t.app, 'POST', '/giving/campaigns', {
      token: staff(c),
      body: [{ name: 'New Roof', startDate: '2025-01-05', fundId: building, goalAmount: 25000.5, endDate: null, description: 'Before winter', showPublic: true, allowSelfPledge: false }],
    });
    expect(created.statusCode).toBe(200);
    const [campaign] = created.json();
    expect(campaign).toEqual({
      id: expect.any(String),
      fundId: building,
      name: 'New Roof',
      description: 'Before winter',
      goalAmount: 25000.5,
      startDate: '2025-01-05',
      endDate: null,
      showPublic: true,
      allowSelfPledge: false,
    });
    // CampaignsPage.tsx reads `progress[].campaign` and hands it to the editor, which posts it back changed
    const [listed] = (await call(t.app, 'GET', '/giving/campaigns/progress', { token: staff(c) })).json();
    expect(listed.campaign).toEqual(campaign);
    const saved = await call(t.app, 'POST', '/giving/campaigns', {
      token: staff(c),
      body: [{ ...listed.campaign, name: 'New Roof 2025', endDate: '2025-12-31T00:00:00.000Z', goalAmount: undefined, allowSelfPledge: true }],
    });
    expect(saved.json()).toEqual([{ ...campaign, name: 'New Roof 2025', endDate: '2025-12-31', allowSelfPledge: true }]);
    // a goal cleared (0 or null) is no goal
    const cleared = await call(t.app, 'POST', '/giving/campaigns', { token: staff(c), body: { id: campaign.id, goalAmount: 0 } });
    expect(cleared.json()[0].goalAmount).toBeNull();
    expect((await call(t.app, 'GET', `/giving/campaigns/${campaign.id}`, { token: staff(c) })).json()).toMatchObject({ name: 'New Roof 2025', goalAmount: null });
    expect((await call(t.app, 'GET', '/giving/campaigns', { token: staff(c) })).json()).toHaveLength(1);
  });

  it('refuses a campaign without its name, fund or start, a fund of another church, an end before its start and impossible dates, writing nothing', async () => {
    const c = makeChurch();
    const other = makeChurch();
    const [fund] = await makeFunds(t, staff(c), ['Building']);
    const [foreignFund] = await makeFunds(t, staff(other), ['Theirs']);
    const missing = await call(t.app, 'POST', '/giving/campaigns', { token: staff(c), body: [{ description: 'x' }] });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors.map((e: { param: string }) => e.param).sort()).toEqual(['[0].fundId', '[0].name', '[0].startDate']);
    // a day that does not exist is the caller's mistake, never a server error
    for (const startDate of ['2026-13-45', '2026-02-30']) {
      const impossible = await call(t.app, 'POST', '/giving/campaigns', { token: staff(c), body: [{ name: 'A', startDate }] });
      expect([startDate, impossible.statusCode, impossible.json().errors[0].param]).toEqual([startDate, 400, '[0].startDate']);
    }
    const foreign = await call(t.app, 'POST', '/giving/campaigns', { token: staff(c), body: [{ name: 'A', fundId: foreignFund, startDate: '2025-01-01' }] });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().errors[0]).toMatchObject({ param: '[0].fundId', msg: 'fundId is not a record of this church' });
    const backwards = await call(t.app, 'POST', '/giving/campaigns', {
      token: staff(c),
      body: [
        { name: 'Fine', fundId: fund, startDate: '2025-01-01' },
        { name: 'Backwards', fundId: fund, startDate: '2025-03-01', endDate: '2025-02-28' },
      ],
    });
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().errors[0]).toMatchObject({ param: '[1].endDate', msg: 'must not be before startDate' });
    const impossible = await call(t.app, 'POST', '/giving/campaigns', { token: staff(c), body: { name: 'A', fundId: fund, startDate: '2025-02-30' } });
    expect(impossible.statusCode).toBe(400);
    expect(impossible.json().errors[0].param).toBe('startDate');
    const cents = await call(t.app, 'POST', '/giving/campaigns', { token: staff(c), body: { name: 'A', fundId: fund, startDate: '2025-02-01', goalAmount: 10.005 } });
    expect(cents.statusCode).toBe(400);
    expect(cents.json().errors[0].param).toBe('goalAmount');
    expect(await t.app.db.select().from(campaigns).where(eq(campaigns.churchId, c.churchId))).toEqual([]);
  });

  it('keeps each church to its own campaigns and the staff to their permissions', async () => {
    const c = makeChurch();
    const other = makeChurch();
    const [fund] = await makeFunds(t, staff(c), ['Building']);
    const campaign = await makeCampaign(c, { name: 'Roof', fundId: fund, startDate: '2025-01-01' });
    const member = c.token([]);
    for (const [method, url, body] of [
      ['GET', '/giving/campaigns/progress'],
      ['GET', `/giving/campaigns/${campaign.id}/progress`],
      ['GET', '/giving/campaigns/progress/people'],
      ['GET', `/giving/campaigns/${campaign.id}`],
      ['POST', '/giving/campaigns', { id: campaign.id, name: 'Mine now' }],
      ['DELETE', `/giving/campaigns/${campaign.id}`],
    ] as const) {
      expect({ url, status: (await call(t.app, method, url, { token: member, body })).statusCode }).toEqual({ url, status: 401 });
    }
    // only the summary permission: reads, no writes
    const viewer = c.token(['Donations.ViewSummary']);
    expect((await call(t.app, 'GET', `/giving/campaigns/${campaign.id}/progress`, { token: viewer })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/giving/campaigns', { token: viewer, body: { id: campaign.id, name: 'x' } })).statusCode).toBe(401);
    // another church's staff: its id is none of theirs
    for (const [method, url, body] of [
      ['GET', `/giving/campaigns/${campaign.id}/progress`],
      ['GET', `/giving/campaigns/${campaign.id}`],
      ['POST', '/giving/campaigns', { id: campaign.id, name: 'Theirs now' }],
      ['DELETE', `/giving/campaigns/${campaign.id}`],
    ] as const) {
      const res = await call(t.app, method, url, { token: staff(other), body });
      expect({ url, method, status: res.statusCode, error: res.json().errors[0] }).toEqual({ url, method, status: 404, error: 'Campaign not found' });
    }
    expect((await call(t.app, 'GET', '/giving/campaigns/progress', { token: staff(other) })).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/giving/campaigns/progress/people', { token: staff(other) })).json()).toEqual([]);
    const [kept] = await t.app.db.select().from(campaigns).where(eq(campaigns.id, campaign.id));
    expect(kept).toMatchObject({ name: 'Roof', churchId: c.churchId });
  });

  it('deletes a campaign with its pledges (each reported) and leaves its gifts to the fund', async () => {
    const c = makeChurch();
    const [fund] = await makeFunds(t, staff(c), ['Building']);
    const ada = makePerson('Ada', 'Lovelace', null, c.churchId);
    const campaign = await makeCampaign(c, { name: 'Roof', fundId: fund, startDate: '2025-01-01' });
    const kept = await makeCampaign(c, { name: 'Organ', fundId: fund, startDate: '2025-01-01' });
    const [pledge] = (await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body: [{ campaignId: campaign.id, personId: ada.id, amount: 100 }] })).json();
    const [other] = (await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body: [{ campaignId: kept.id, personId: ada.id, amount: 50 }] })).json();
    await give(c, { personId: ada.id, date: '2025-02-01', funds: [[fund, 40]] });
    await t.drain();
    const start = reported().length;
    const res = await call(t.app, 'DELETE', `/giving/campaigns/${campaign.id}`, { token: staff(c) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect(await t.app.db.select().from(campaigns).where(eq(campaigns.id, campaign.id))).toEqual([]);
    expect((await t.app.db.select().from(pledges).where(eq(pledges.churchId, c.churchId))).map((p) => p.id)).toEqual([other.id]);
    expect((await call(t.app, 'GET', `/giving/campaigns/${campaign.id}/progress`, { token: staff(c) })).statusCode).toBe(404);
    // the gift still counts for the other campaign on the same fund
    expect((await call(t.app, 'GET', `/giving/campaigns/${kept.id}/progress`, { token: staff(c) })).json().totalGiven).toBe(40);
    await t.drain();
    const mine = reported().slice(start).filter((r) => r.churchId === c.churchId);
    expect(mine.map((r) => [r.entityType, r.entityId, r.action]).sort()).toEqual(
      [
        ['campaign', campaign.id, 'destroyed'],
        ['pledge', pledge.id, 'destroyed'],
      ].sort(),
    );
  });
});

describe('campaign progress', () => {
  it('B1Admin:src/donations/CampaignPage.tsx reads a campaign’s totals and a row per person: complete gifts to its fund on its days, both ends included', async () => {
    const c = makeChurch();
    const [building, general] = await makeFunds(t, staff(c), ['Building', 'General']);
    const [ada, bob, cy, dee, eve] = ['Ada', 'Bob', 'Cy', 'Dee', 'Eve'].map((n) => makePerson(n, 'Test', null, c.churchId));
    const campaign = await makeCampaign(c, { name: 'Roof', fundId: building, startDate: '2025-01-01', endDate: '2025-03-31', goalAmount: 1000 });
    await give(c, { personId: ada!.id, date: '2025-01-01T00:30:00Z', funds: [[building, 100]] }); // first day
    await give(c, { personId: ada!.id, date: '2025-03-31T23:59:00Z', funds: [[building, 50]] }); // last day, still the 31st in UTC
    const late = await give(c, { personId: ada!.id, date: '2025-04-01T00:00:00Z', funds: [[building, 70]] }); // after it
    await give(c, { personId: ada!.id, date: '2024-12-31T23:59:00Z', funds: [[building, 40]] }); // before it
    await give(c, { personId: bob!.id, date: '2025-02-01', funds: [[building, 200], [general, 100]] }); // another fund's part is not the campaign's
    const pending = await give(c, { personId: cy!.id, date: '2025-02-01', status: 'pending', funds: [[building, 80]] });
    await give(c, { date: '2025-02-02', funds: [[building, 25]] }); // anonymous: in the total, not a donor
    await give(c, { personId: dee!.id, date: '2025-02-03', status: 'failed', funds: [[building, 60]] });
    await give(c, { personId: dee!.id, date: '2025-02-03', status: 'refunded', funds: [[building, 65]] });
    const body = [
      { campaignId: campaign.id, personId: ada!.id, amount: 150 },
      { campaignId: campaign.id, personId: bob!.id, amount: 100 },
      { campaignId: campaign.id, personId: cy!.id, amount: 100 },
      { campaignId: campaign.id, personId: eve!.id, amount: 500 },
    ];
    const made = (await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body })).json() as Array<{ id: string }>;
    const [adaPledge, bobPledge, cyPledge, evePledge] = made.map((p) => p.id);

    const progress = await call(t.app, 'GET', `/giving/campaigns/${campaign.id}/progress`, { token: staff(c) });
    expect(progress.statusCode).toBe(200);
    const row = (personId: string | null, pledgeId: string | null, pledgedAmount: number, givenAmount: number, status: string) => ({
      campaignId: campaign.id,
      campaignName: 'Roof',
      personId,
      pledgeId,
      pledgedAmount,
      givenAmount,
      status,
    });
    expect(progress.json()).toEqual({
      campaign,
      totalGiven: 375,
      totalPledged: 850,
      pledgeCount: 4,
      donorCount: 2,
      percent: 38,
      rows: [
        row(eve!.id, evePledge!, 500, 0, 'notStarted'),
        row(ada!.id, adaPledge!, 150, 150, 'fulfilled'),
        row(bob!.id, bobPledge!, 100, 200, 'beyondPledged'),
        row(cy!.id, cyPledge!, 100, 0, 'notStarted'),
        row(null, null, 0, 25, 'nonPledged'),
      ],
    });

    // the pending check clears, and the late gift is redated into the campaign: both count from then on
    expect((await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { id: pending, status: 'complete' } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { id: late, donationDate: '2025-03-30' } })).statusCode).toBe(200);
    const after = (await call(t.app, 'GET', `/giving/campaigns/${campaign.id}/progress`, { token: staff(c) })).json();
    expect(after).toMatchObject({ totalGiven: 525, donorCount: 3, percent: 53 });
    expect(after.rows.find((r: { personId: string }) => r.personId === cy!.id)).toMatchObject({ givenAmount: 80, status: 'inProgress' });
    expect(after.rows.find((r: { personId: string }) => r.personId === ada!.id)).toMatchObject({ givenAmount: 220, status: 'beyondPledged' });

    // the same sum as the fund's kept daily totals over the campaign's days
    const fundTotal = (await call(t.app, 'GET', `/giving/funds/public/${c.churchId}/${building}/total?startDate=2025-01-01&endDate=2025-03-31`)).json();
    expect(fundTotal.totalAmount).toBe(after.totalGiven);

    // B1Admin:src/donations/CampaignsPage.tsx reads the list's totalPledged and totalGiven
    const list = (await call(t.app, 'GET', '/giving/campaigns/progress', { token: staff(c) })).json();
    expect(list).toEqual([{ campaign, totalGiven: 525, totalPledged: 850, pledgeCount: 4, percent: 53 }]);
  });

  it('answers a campaign with no gifts or pledges, an open-ended one and one without a goal', async () => {
    const c = makeChurch();
    const [fund] = await makeFunds(t, staff(c), ['Missions']);
    const ada = makePerson('Ada', 'Open', null, c.churchId);
    const empty = await makeCampaign(c, { name: 'B Empty', fundId: fund, startDate: '2030-01-01', goalAmount: 500 });
    const open = await makeCampaign(c, { name: 'A Open', fundId: fund, startDate: '2025-01-01' });
    await give(c, { personId: ada.id, date: utcToday(), funds: [[fund, 12.34]] });
    expect((await call(t.app, 'GET', `/giving/campaigns/${empty.id}/progress`, { token: staff(c) })).json()).toEqual({
      campaign: empty,
      totalGiven: 0,
      totalPledged: 0,
      pledgeCount: 0,
      donorCount: 0,
      percent: 0,
      rows: [],
    });
    // in start order
    expect((await call(t.app, 'GET', '/giving/campaigns/progress', { token: staff(c) })).json()).toEqual([
      { campaign: open, totalGiven: 12.34, totalPledged: 0, pledgeCount: 0, percent: null },
      { campaign: empty, totalGiven: 0, totalPledged: 0, pledgeCount: 0, percent: 0 },
    ]);
  });

  it('B1Admin:src/donations/PrintAllStatementsPage.tsx and PrintDonationPage.tsx read every person’s rows with the campaign’s name, filtered by personId', async () => {
    const c = makeChurch();
    const [building, missions] = await makeFunds(t, staff(c), ['Building', 'Missions']);
    const ada = makePerson('Ada', 'Statement', null, c.churchId);
    const bob = makePerson('Bob', 'Statement', null, c.churchId);
    const roof = await makeCampaign(c, { name: 'Roof', fundId: building, startDate: '2025-01-01', endDate: '2025-12-31' });
    const wells = await makeCampaign(c, { name: 'Wells', fundId: missions, startDate: '2025-06-01' });
    await call(t.app, 'POST', '/giving/pledges', {
      token: staff(c),
      body: [
        { campaignId: roof.id, personId: ada.id, amount: 300 },
        { campaignId: wells.id, personId: ada.id, amount: 50 },
        { campaignId: roof.id, personId: bob.id, amount: 20 },
      ],
    });
    await give(c, { personId: ada.id, date: '2025-07-01', funds: [[building, 100], [missions, 60]] });
    const rows = (await call(t.app, 'GET', '/giving/campaigns/progress/people', { token: staff(c) })).json();
    expect(rows).toEqual([
      { campaignId: roof.id, campaignName: 'Roof', personId: ada.id, pledgeId: expect.any(String), pledgedAmount: 300, givenAmount: 100, status: 'inProgress' },
      { campaignId: roof.id, campaignName: 'Roof', personId: bob.id, pledgeId: expect.any(String), pledgedAmount: 20, givenAmount: 0, status: 'notStarted' },
      { campaignId: wells.id, campaignName: 'Wells', personId: ada.id, pledgeId: expect.any(String), pledgedAmount: 50, givenAmount: 60, status: 'beyondPledged' },
    ]);
    // the statement page filters by the person; the server can do it too
    const adaRows = (await call(t.app, 'GET', `/giving/campaigns/progress/people?personId=${ada.id}`, { token: staff(c) })).json();
    expect(adaRows).toEqual(rows.filter((r: { personId: string }) => r.personId === ada.id));
    expect((await call(t.app, 'GET', '/giving/campaigns/progress/people?personId=nope', { token: staff(c) })).json().errors[0].param).toBe('personId');

    // The text is the rows one campaign at a time (`campaignRows`), serialized as the schema does, whatever the
    // filters: with an anonymous gift, a giver without a pledge, cents, and a campaign starting the same day as another.
    const cy = makePerson('Cy', 'Statement', null, c.churchId);
    const chapel = await makeCampaign(c, { name: 'Chapel', fundId: building, startDate: '2025-06-01' });
    await give(c, { date: '2025-07-02', funds: [[building, 0.1], [missions, 7.05]] });
    await give(c, { personId: cy.id, date: '2025-07-03', funds: [[missions, 19.99]] });
    await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body: { campaignId: chapel.id, personId: bob.id, amount: 0.5 } });
    const reference = async (f: { personId?: string; campaignId?: string }) => JSON.stringify((await campaignRows(t.app.db, c.churchId, f)).flatMap((x) => x.rows));
    const cases: Array<[string, { personId?: string; campaignId?: string }]> = [
      ['', {}],
      [`?personId=${ada.id}`, { personId: ada.id }],
      [`?campaignId=${wells.id}`, { campaignId: wells.id }],
      [`?personId=${cy.id}&campaignId=${wells.id}`, { personId: cy.id, campaignId: wells.id }],
    ];
    for (const [query, f] of cases) {
      const res = await call(t.app, 'GET', `/giving/campaigns/progress/people${query}`, { token: staff(c) });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(await reference(f));
    }
    const all = (await call(t.app, 'GET', '/giving/campaigns/progress/people', { token: staff(c) })).json();
    expect(all.map((r: { campaignName: string }) => r.campaignName)).toEqual(['Roof', 'Roof', 'Roof', 'Chapel', 'Chapel', 'Chapel', 'Wells', 'Wells', 'Wells']);
    expect(all.find((r: { campaignName: string; personId: string | null }) => r.campaignName === 'Wells' && r.personId === null)).toMatchObject({ pledgeId: null, givenAmount: 7.05, status: 'nonPledged' });
    expect(all.find((r: { campaignName: string; personId: string | null }) => r.campaignName === 'Chapel' && r.personId === bob.id)).toMatchObject({ pledgedAmount: 0.5, givenAmount: 0, status: 'notStarted' });
    expect((await call(t.app, 'GET', '/giving/campaigns/progress/people', { token: staff(makeChurch()) })).json()).toEqual([]);
  });
});

describe('public campaigns (the member app)', () => {
  it('B1App:src/components/donate/CampaignProgress.tsx reads a church’s public campaigns not ended, with their totals and no person', async () => {
    const c = makeChurch();
    const [fund] = await makeFunds(t, staff(c), ['Building']);
    const ada = makePerson('Ada', 'Public', null, c.churchId);
    const shown = await makeCampaign(c, { name: 'Roof', fundId: fund, startDate: '2025-01-01', endDate: utcToday(), goalAmount: 200, showPublic: true, allowSelfPledge: true, description: 'Help' });
    const upcoming = await makeCampaign(c, { name: 'Organ', fundId: fund, startDate: dayOffset(30), showPublic: true });
    await makeCampaign(c, { name: 'Ended', fundId: fund, startDate: '2024-01-01', endDate: dayOffset(-1), showPublic: true });
    await makeCampaign(c, { name: 'Staff only', fundId: fund, startDate: '2025-01-01' });
    await give(c, { personId: ada.id, date: utcToday(), funds: [[fund, 50]] });
    await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body: { campaignId: shown.id, personId: ada.id, amount: 80 } });
    const res = await call(t.app, 'GET', `/giving/campaigns/churchId/${c.churchId}`);
    expect(res.statusCode).toBe(200);
    const { showPublic: _shown, ...roof } = shown as typeof shown & { showPublic: boolean };
    const { showPublic: _upcoming, ...organ } = upcoming as typeof upcoming & { showPublic: boolean };
    expect(res.json()).toEqual([
      { campaign: roof, totalGiven: 50, totalPledged: 80, pledgeCount: 1, percent: 25 },
      { campaign: organ, totalGiven: 0, totalPledged: 0, pledgeCount: 0, percent: null },
    ]);
    expect((await call(t.app, 'GET', `/giving/campaigns/churchId/${makeChurch().churchId}`)).json()).toEqual([]);
    expect((await call(t.app, 'GET', '/giving/campaigns/churchId/not-a-church')).statusCode).toBe(400);
  });
});

describe('pledges', () => {
  it('B1Admin:src/donations/components/PledgeEdit.tsx adds a pledge for a person, changes it by id and deletes it; a second pledge of the person changes the first', async () => {
    const c = makeChurch();
    const [fund] = await makeFunds(t, staff(c), ['Building']);
    const ada = makePerson('Ada', 'Pledge', null, c.churchId);
    const campaign = await makeCampaign(c, { name: 'Roof', fundId: fund, startDate: '2025-01-01' });
    // a new pledge: `{...props.pledge (null), campaignId, personId, amount}`
    const created = await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body: [{ campaignId: campaign.id, personId: ada.id, amount: 250.25 }] });
    expect(created.statusCode).toBe(200);
    const [pledge] = created.json();
    expect(pledge).toEqual({ id: expect.any(String), campaignId: campaign.id, personId: ada.id, amount: 250.25 });
    // CampaignPage.tsx edits a row as `{id: row.pledgeId, campaignId, personId, amount}`
    const changed = await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body: [{ id: pledge.id, campaignId: campaign.id, personId: ada.id, amount: '300' }] });
    expect(changed.json()).toEqual([{ ...pledge, amount: 300 }]);
    const again = await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body: { campaignId: campaign.id, personId: ada.id, amount: 320 } });
    expect(again.json()).toEqual([{ ...pledge, amount: 320 }]);
    expect(await t.app.db.select().from(pledges).where(eq(pledges.churchId, c.churchId))).toHaveLength(1);
    expect((await call(t.app, 'GET', `/giving/pledges?campaignId=${campaign.id}`, { token: staff(c) })).json()).toEqual([{ ...pledge, amount: 320 }]);
    expect((await call(t.app, 'GET', `/giving/pledges/${pledge.id}`, { token: staff(c) })).json()).toEqual({ ...pledge, amount: 320 });
    const deleted = await call(t.app, 'DELETE', `/giving/pledges/${pledge.id}`, { token: staff(c) });
    expect(deleted.statusCode).toBe(200);
    expect(await t.app.db.select().from(pledges).where(eq(pledges.churchId, c.churchId))).toEqual([]);
    expect((await call(t.app, 'DELETE', `/giving/pledges/${pledge.id}`, { token: staff(c) })).statusCode).toBe(404);
  });

  it('refuses a pledge without its fields, for a person or campaign not the church’s, of no amount, or moved onto another pledge; staff permissions only', async () => {
    const c = makeChurch();
    const other = makeChurch();
    const [fund] = await makeFunds(t, staff(c), ['Building']);
    const [theirFund] = await makeFunds(t, staff(other), ['Theirs']);
    const ada = makePerson('Ada', 'Refused', null, c.churchId);
    const bob = makePerson('Bob', 'Refused', null, c.churchId);
    const stranger = makePerson('Stranger', 'Elsewhere', null, other.churchId);
    const campaign = await makeCampaign(c, { name: 'Roof', fundId: fund, startDate: '2025-01-01' });
    const theirs = await makeCampaign(other, { name: 'Theirs', fundId: theirFund, startDate: '2025-01-01' });
    const post = (body: unknown, token = staff(c)) => call(t.app, 'POST', '/giving/pledges', { token, body });
    const refusal = async (body: unknown) => {
      const res = await post(body);
      return [res.statusCode, res.json().errors[0].param ?? res.json().errors[0]];
    };
    expect(await refusal([{ personId: ada.id, amount: 5 }])).toEqual([400, '[0].campaignId']);
    expect(await refusal({ campaignId: campaign.id, amount: 5 })).toEqual([400, 'personId']);
    expect(await refusal({ campaignId: campaign.id, personId: ada.id })).toEqual([400, 'amount']);
    expect(await refusal({ campaignId: campaign.id, personId: ada.id, amount: 0 })).toEqual([400, 'amount']);
    expect(await refusal({ campaignId: campaign.id, personId: ada.id, amount: -5 })).toEqual([400, 'amount']);
    expect(await refusal([{ campaignId: campaign.id, personId: ada.id, amount: 5 }, { campaignId: theirs.id, personId: ada.id, amount: 5 }])).toEqual([400, '[1].campaignId']);
    expect(await refusal({ campaignId: campaign.id, personId: stranger.id, amount: 5 })).toEqual([400, 'personId']);
    expect(await t.app.db.select().from(pledges).where(eq(pledges.churchId, c.churchId))).toEqual([]);
    const [adas] = (await post({ campaignId: campaign.id, personId: ada.id, amount: 5 })).json();
    const [bobs] = (await post({ campaignId: campaign.id, personId: bob.id, amount: 7 })).json();
    const moved = await post({ id: bobs.id, personId: ada.id });
    expect([moved.statusCode, moved.json().errors[0]]).toEqual([409, 'This person already has a pledge to this campaign']);
    // another church's staff cannot change, read or delete it; a member without the permission is refused
    expect((await post({ id: adas.id, amount: 1 }, staff(other))).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/giving/pledges/${adas.id}`, { token: staff(other) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/giving/pledges/${adas.id}`, { token: staff(other) })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/giving/pledges', { token: staff(other) })).json()).toEqual([]);
    expect((await post({ id: adas.id, amount: 1 }, c.token(['Donations.View']))).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/giving/pledges/${adas.id}`, { token: c.token(['Donations.View']) })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/giving/pledges', { token: c.token([]) })).statusCode).toBe(401);
    const kept = await t.app.db.select().from(pledges).where(and(eq(pledges.churchId, c.churchId), eq(pledges.id, adas.id)));
    expect(kept[0]).toMatchObject({ personId: ada.id, amount: '5.00' });
  });

  it('B1App:src/components/donate/CampaignProgress.tsx pledges as the signed-in member and reads their own pledges with what they gave', async () => {
    const c = makeChurch();
    const [fund] = await makeFunds(t, staff(c), ['Building']);
    const campaign = await makeCampaign(c, { name: 'Roof', fundId: fund, startDate: '2025-01-01', showPublic: true, allowSelfPledge: true, goalAmount: 1000 });
    const closed = await makeCampaign(c, { name: 'Staff pledges only', fundId: fund, startDate: '2025-01-01' });
    const ended = await makeCampaign(c, { name: 'Ended', fundId: fund, startDate: '2024-01-01', endDate: '2024-12-31', allowSelfPledge: true });
    const memberId = makePerson('Mia', 'Member', null, c.churchId).id;
    const member = c.tokenOf(memberId, []);
    expect((await call(t.app, 'GET', '/giving/pledges/my', { token: member })).json()).toEqual([]);
    await give(c, { personId: memberId, date: '2025-02-01', funds: [[fund, 30]] });
    const made = await call(t.app, 'POST', '/giving/pledges/my', { token: member, body: { campaignId: campaign.id, amount: 120 } });
    expect(made.statusCode).toBe(200);
    const pledge = made.json();
    expect(pledge).toEqual({ id: expect.any(String), campaignId: campaign.id, personId: memberId, amount: 120 });
    const mine = await call(t.app, 'GET', '/giving/pledges/my', { token: member });
    expect(mine.json()).toEqual([{ pledge, campaign, givenAmount: 30, status: 'inProgress' }]);
    // "Update Pledge": the same call again changes it
    const updated = await call(t.app, 'POST', '/giving/pledges/my', { token: member, body: { campaignId: campaign.id, amount: 30 } });
    expect(updated.json()).toEqual({ ...pledge, amount: 30 });
    expect((await call(t.app, 'GET', '/giving/pledges/my', { token: member })).json()).toEqual([{ pledge: { ...pledge, amount: 30 }, campaign, givenAmount: 30, status: 'fulfilled' }]);
    // someone else's pledges are not theirs to read
    await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body: { campaignId: closed.id, personId: makePerson('Other', 'Person', null, c.churchId).id, amount: 10 } });
    expect((await call(t.app, 'GET', '/giving/pledges/my', { token: member })).json()).toHaveLength(1);

    const refused = async (body: unknown, token = member) => {
      const res = await call(t.app, 'POST', '/giving/pledges/my', { token, body });
      return [res.statusCode, res.json().errors[0].param ?? res.json().errors[0], res.json().errors[0].msg];
    };
    expect(await refused({ campaignId: closed.id, amount: 10 })).toEqual([400, 'campaignId', 'does not take pledges from members']);
    expect(await refused({ campaignId: ended.id, amount: 10 })).toEqual([400, 'campaignId', 'has ended']);
    expect(await refused({ campaignId: campaign.id, amount: 0 })).toEqual([400, 'amount', expect.any(String)]);
    const other = makeChurch();
    expect((await refused({ campaignId: campaign.id, amount: 10 }, other.token([])))[0]).toBe(400);
    expect((await call(t.app, 'POST', '/giving/pledges/my', { token: c.token([], { personId: null }), body: { campaignId: campaign.id, amount: 10 } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/giving/pledges/my', { body: { campaignId: campaign.id, amount: 10 } })).statusCode).toBe(401);
    const rows = await t.app.db.select().from(pledges).where(eq(pledges.churchId, c.churchId));
    const byAmount = rows.map((r) => [r.personId, r.amount]).sort((a, b) => Number(a[1]) - Number(b[1]));
    expect(byAmount).toEqual([
      [expect.any(String), '10.00'],
      [memberId, '30.00'],
    ]);
    expect(await t.app.db.select().from(pledges).where(eq(pledges.churchId, other.churchId))).toEqual([]);
  });

  it('reports every pledge written, with the amount before and after', async () => {
    const c = makeChurch();
    const [fund] = await makeFunds(t, staff(c), ['Building']);
    const ada = makePerson('Ada', 'Audit', null, c.churchId);
    const campaign = await makeCampaign(c, { name: 'Roof', fundId: fund, startDate: '2025-01-01', allowSelfPledge: true });
    await t.drain();
    const start = reported().length;
    const [pledge] = (await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body: { campaignId: campaign.id, personId: ada.id, amount: 10 } })).json();
    await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body: { campaignId: campaign.id, personId: ada.id, amount: 15 } });
    await call(t.app, 'POST', '/giving/pledges/my', { token: c.tokenOf(ada.id), body: { campaignId: campaign.id, amount: 20 } });
    // the same amount again changes nothing and reports nothing
    await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body: { id: pledge.id, amount: 20 } });
    await t.drain();
    const mine = reported()
      .slice(start)
      .filter((r) => r.churchId === c.churchId && r.entityType === 'pledge')
      // jobs may be delivered in any order; the amounts tell the writes apart
      .sort((x, y) => Number((x.changes as { amount: { after: string } }).amount.after) - Number((y.changes as { amount: { after: string } }).amount.after));
    expect(mine.map((r) => [r.action, r.entityId, r.changes])).toEqual([
      ['created', pledge.id, expect.objectContaining({ amount: { before: null, after: '10.00' } })],
      ['updated', pledge.id, { amount: { before: '10.00', after: '15.00' } }],
      ['updated', pledge.id, { amount: { before: '15.00', after: '20.00' } }],
    ]);
  });
});

describe('the gift day kept on allocations', () => {
  it('is each allocation’s UTC day while its donation is complete, through a batch of writes (gift_day, migration 0005)', async () => {
    const c = makeChurch();
    const [a, b] = await makeFunds(t, staff(c), ['A', 'B']);
    const first = await give(c, { date: '2025-05-05T23:30:00Z', funds: [[a, 1], [b, 2]] });
    const second = await give(c, { date: '2025-05-06T01:00:00Z', status: 'pending', funds: [[a, 3]] });
    const mismatched = async () =>
      rowsOf<{ id: string }>(
        await t.app.db.execute(sql`
          select fd.id from fund_donations fd left join donations d on d.church_id = fd.church_id and d.id = fd.donation_id
           where fd.church_id = ${c.churchId}
             and fd.gift_day is distinct from (case when d.status = 'complete' then (d.donation_date at time zone 'UTC')::date end)`),
      );
    const days = async () => rowsOf<{ day: string | null }>(await t.app.db.execute(sql`select gift_day::text as day from fund_donations where church_id = ${c.churchId} order by amount`)).map((r) => r.day);
    expect(await days()).toEqual(['2025-05-05', '2025-05-05', null]);
    await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { id: second, status: 'complete' } });
    expect(await days()).toEqual(['2025-05-05', '2025-05-05', '2025-05-06']);
    await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { id: first, donationDate: '2025-05-07' } });
    expect(await days()).toEqual(['2025-05-07', '2025-05-07', '2025-05-06']);
    // an allocation moved to another donation takes its day
    const [moving] = (await call(t.app, 'GET', `/giving/funddonations?donationId=${first}`, { token: staff(c) })).json();
    await call(t.app, 'POST', '/giving/funddonations', { token: staff(c), body: { id: moving.id, donationId: second, amount: moving.amount } });
    expect(await mismatched()).toEqual([]);
    await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { id: second, status: 'refunded' } });
    expect(await mismatched()).toEqual([]);
    // rows written directly: the statement's allocations get their day after it
    await t.app.db.execute(sql`update donations set status = 'complete' where id = ${second}`);
    await t.app.db.execute(sql`insert into fund_donations (id, church_id, donation_id, fund_id, amount) values (gen_random_uuid(), ${c.churchId}, ${first}, ${b}, 4), (gen_random_uuid(), ${c.churchId}, ${second}, ${a}, 5)`);
    expect(await mismatched()).toEqual([]);
    await call(t.app, 'DELETE', `/giving/donations/${first}`, { token: staff(c) });
    expect(await mismatched()).toEqual([]);
  });
});

describe('what each person gave to a campaign, kept (campaign_gift_totals, migration 0007)', () => {
  type Given = { campaignId: string; personId: string | null; cents: number; count: number };
  const ANONYMOUS = '00000000-0000-0000-0000-000000000000';

  /** The kept per-person totals of a church, summed over slots (rows fallen to zero left out), in integer cents. */
  const kept = async (churchId: string): Promise<Given[]> =>
    rowsOf<{ campaignId: string; personId: string; cents: string; count: number }>(
      await t.app.db.execute(sql`
        select campaign_id as "campaignId", person_id as "personId", (sum(given) * 100)::bigint::text as cents, sum(gift_count)::int as count
          from campaign_gift_totals where church_id = ${churchId}
         group by 1, 2 having sum(gift_count) <> 0 or sum(given) <> 0 order by 1, 2`),
    ).map((r) => ({ campaignId: r.campaignId, personId: r.personId === ANONYMOUS ? null : r.personId, cents: Number(r.cents), count: r.count }));

  /** The same from scratch: allocations to each campaign's fund of complete donations on its UTC days. */
  const fromScratch = async (churchId: string): Promise<Given[]> =>
    rowsOf<{ campaignId: string; personId: string | null; cents: string; count: number }>(
      await t.app.db.execute(sql`
        select c.id as "campaignId", d.person_id as "personId", (sum(fd.amount) * 100)::bigint::text as cents, count(*)::int as count
          from campaigns c
          join fund_donations fd on fd.church_id = c.church_id and fd.fund_id = c.fund_id
          join donations d on d.church_id = fd.church_id and d.id = fd.donation_id and d.status = 'complete'
         where c.church_id = ${churchId}
           and (d.donation_date at time zone 'UTC')::date between c.start_date and coalesce(c.end_date, 'infinity'::date)
         group by 1, 2 order by 1, coalesce(d.person_id, ${ANONYMOUS}::uuid)`),
    ).map((r) => ({ campaignId: r.campaignId, personId: r.personId, cents: Number(r.cents), count: r.count }));

  /** The kept totals equal the from-scratch sum, and each campaign's page answers exactly them (cents, donors, totals). */
  async function expectKept(c: Church) {
    const scratch = await fromScratch(c.churchId);
    expect(await kept(c.churchId)).toEqual(scratch);
    for (const listed of (await call(t.app, 'GET', '/giving/campaigns', { token: staff(c) })).json() as Array<{ id: string }>) {
      const page = (await call(t.app, 'GET', `/giving/campaigns/${listed.id}/progress`, { token: staff(c) })).json();
      const mine = scratch.filter((g) => g.campaignId === listed.id);
      const given = (rows: Array<{ personId: string | null; givenAmount: number }>) =>
        rows.filter((r) => r.givenAmount !== 0).map((r) => [r.personId, Math.round(r.givenAmount * 100)]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      expect(given(page.rows)).toEqual(mine.filter((g) => g.cents !== 0).map((g) => [g.personId, g.cents]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
      expect(Math.round(page.totalGiven * 100)).toBe(mine.reduce((sum, g) => sum + g.cents, 0));
      expect(page.donorCount).toBe(mine.filter((g) => g.personId !== null && g.cents > 0).length);
    }
    return scratch;
  }

  it('stay equal to a from-scratch sum through every write to gifts and campaigns, and the page answers them exactly', async () => {
    const other = makeChurch();
    const [otherFund] = await makeFunds(t, staff(other), ['Building']);
    await makeCampaign(other, { name: 'Theirs', fundId: otherFund, startDate: '2025-01-01' });
    await give(other, { date: '2025-02-01', funds: [[otherFund, 3.33]] });
    const otherBefore = await kept(other.churchId);
    expect(otherBefore).toEqual([{ campaignId: expect.any(String), personId: null, cents: 333, count: 1 }]);

    const c = makeChurch();
    const [building, general] = await makeFunds(t, staff(c), ['Building', 'General']);
    const [ada, bob] = ['Ada', 'Bob'].map((n) => makePerson(n, 'Kept', null, c.churchId));
    const roof = await makeCampaign(c, { name: 'Roof', fundId: building, startDate: '2025-01-01', endDate: '2025-03-31' });
    // a campaign created over gifts already there is filled from them
    const first = await give(c, { personId: ada!.id, date: '2025-01-15', funds: [[building, 0.1], [general, 5]] });
    await give(c, { personId: ada!.id, date: '2025-01-16', funds: [[building, 0.2]] });
    const open = await makeCampaign(c, { name: 'Open', fundId: building, startDate: '2025-02-01' });
    const bobs = await give(c, { personId: bob!.id, date: '2025-02-10', funds: [[building, 19.99], [building, 0.01]] });
    const pending = await give(c, { personId: bob!.id, date: '2025-03-01', status: 'pending', funds: [[building, 7]] });
    const guest = await give(c, { date: '2025-03-02', funds: [[building, 25]] });
    let scratch = await expectKept(c);
    // 0.10 + 0.20 kept as 30 cents exactly
    expect(scratch.find((g) => g.campaignId === roof.id && g.personId === ada!.id)).toEqual({ campaignId: roof.id, personId: ada!.id, cents: 30, count: 2 });

    // status, date, person and allocation changes; a gift removed
    await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { id: pending, status: 'complete' } });
    await expectKept(c);
    await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { id: first, donationDate: '2025-04-02' } }); // out of Roof, still Open's
    await expectKept(c);
    await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { id: guest, personId: ada!.id } }); // a guest gift found to be Ada's
    await expectKept(c);
    const [bobsFirst] = (await call(t.app, 'GET', `/giving/funddonations?donationId=${bobs}`, { token: staff(c) })).json();
    await call(t.app, 'POST', '/giving/funddonations', { token: staff(c), body: { id: bobsFirst.id, amount: 9.99 } });
    await expectKept(c);
    await call(t.app, 'POST', '/giving/funddonations', { token: staff(c), body: { id: bobsFirst.id, fundId: general, amount: 9.99 } });
    await expectKept(c);
    await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { id: pending, status: 'refunded' } });
    await expectKept(c);
    await call(t.app, 'DELETE', `/giving/donations/${bobs}`, { token: staff(c) });
    await expectKept(c);

    // a campaign's days and fund change; one statement writing rows directly
    await call(t.app, 'POST', '/giving/campaigns', { token: staff(c), body: { id: roof.id, endDate: null } });
    await expectKept(c);
    await call(t.app, 'POST', '/giving/campaigns', { token: staff(c), body: { id: open.id, fundId: general, startDate: '2024-12-01' } });
    await expectKept(c);
    await t.app.db.execute(sql`update donations set donation_date = '2025-01-20T12:00:00Z' where church_id = ${c.churchId}`);
    scratch = await expectKept(c);
    expect(scratch.length).toBeGreaterThan(0);

    // a campaign deleted takes its rows; the other church never moved
    await call(t.app, 'DELETE', `/giving/campaigns/${roof.id}`, { token: staff(c) });
    expect((await kept(c.churchId)).some((g) => g.campaignId === roof.id)).toBe(false);
    await expectKept(c);
    expect(await kept(other.churchId)).toEqual(otherBefore);
  });

  it('miss no gift and count none twice when a campaign is written while gifts to its fund are', async () => {
    const c = makeChurch();
    const [fund] = await makeFunds(t, staff(c), ['Building']);
    const people = Array.from({ length: 6 }, (_, i) => makePerson(`P${i}`, 'Race', null, c.churchId));
    const gifts = Array.from({ length: 24 }, (_, i) => give(c, { personId: people[i % 6]!.id, date: '2025-06-01', funds: [[fund, 1.01]] }));
    const campaign = makeCampaign(c, { name: 'Race', fundId: fund, startDate: '2025-01-01' });
    await Promise.all([...gifts, campaign]);
    const scratch = await expectKept(c);
    expect(scratch.reduce((sum, g) => sum + g.cents, 0)).toBe(24 * 101);
  });
});

describe('kept campaign answers (the church’s data version, migration 0009)', () => {
  type Page = { campaign: { name: string }; totalGiven: number; totalPledged: number; rows: Array<{ personId: string | null; pledgedAmount: number; givenAmount: number; campaignName: string }> };
  type Row = Page['rows'][number];
  const read = async (c: Church, url: string, etag?: string) => {
    const res = await call(t.app, 'GET', url, { token: staff(c), headers: etag ? { 'if-none-match': etag } : {} });
    return { status: res.statusCode, etag: res.headers.etag as string, body: res.statusCode === 200 ? res.json() : undefined };
  };
  const given = (rows: Row[]) => Object.fromEntries(rows.map((r) => [r.personId, [r.pledgedAmount, r.givenAmount]]));
  const version = async (churchId: string) =>
    rowsOf<{ version: string }>(await t.app.db.execute(sql`select version::text as version from data_versions where church_id = ${churchId}`))[0]?.version ?? '0';

  it('answer anew after a new gift, a gift changed or removed, a pledge change and a campaign edit, never the kept answer, and 304 while the version holds', async () => {
    const c = makeChurch();
    const [building] = await makeFunds(t, staff(c), ['Building']);
    const campaign = await makeCampaign(c, { name: 'Roof', fundId: building, startDate: '2025-01-01', goalAmount: 1000 });
    const [ada, bob] = [makePerson('Ada', 'Kept'), makePerson('Bob', 'Kept')];
    const adaGift = await give(c, { personId: ada.id, date: '2025-02-01', funds: [[building, 100]] });
    const page = `/giving/campaigns/${campaign.id}/progress`;
    const people = `/giving/campaigns/progress/people?campaignId=${campaign.id}`;

    const first = await read(c, page);
    const firstPeople = await read(c, people);
    expect(first.status).toBe(200);
    expect(first.etag).toMatch(/^"/);
    expect(given(first.body.rows)).toEqual({ [ada.id]: [0, 100] });
    expect(given(firstPeople.body)).toEqual({ [ada.id]: [0, 100] });
    // nothing changed: the same answer, and 304 to a client holding it
    expect((await read(c, page)).etag).toBe(first.etag);
    expect((await read(c, page, first.etag)).status).toBe(304);
    expect((await read(c, people, firstPeople.etag)).status).toBe(304);

    // a new gift to the campaign's fund on its days
    await give(c, { personId: bob.id, date: '2025-03-01', funds: [[building, 50]] });
    const afterGift = await read(c, page, first.etag);
    expect(afterGift.status).toBe(200);
    expect(afterGift.body.totalGiven).toBe(150);
    expect(given(afterGift.body.rows)).toEqual({ [ada.id]: [0, 100], [bob.id]: [0, 50] });
    expect(given((await read(c, people, firstPeople.etag)).body)).toEqual({ [ada.id]: [0, 100], [bob.id]: [0, 50] });

    // a gift no longer complete (donations have no trigger: the change reaches the kept per-person totals)
    expect((await call(t.app, 'POST', '/giving/donations', { token: staff(c), body: { id: adaGift, status: 'failed' } })).statusCode).toBe(200);
    const afterFailed = await read(c, page, afterGift.etag);
    expect(afterFailed.status).toBe(200);
    expect(given(afterFailed.body.rows)).toEqual({ [bob.id]: [0, 50] });

    // a pledge made, then changed
    const pledged = await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body: { campaignId: campaign.id, personId: ada.id, amount: 500 } });
    expect(pledged.statusCode).toBe(200);
    const afterPledge = await read(c, page, afterFailed.etag);
    expect(given(afterPledge.body.rows)).toEqual({ [ada.id]: [500, 0], [bob.id]: [0, 50] });
    expect((await call(t.app, 'POST', '/giving/pledges', { token: staff(c), body: { id: pledged.json()[0].id, amount: 400 } })).statusCode).toBe(200);
    const afterPledgeChange = await read(c, page, afterPledge.etag);
    expect(afterPledgeChange.status).toBe(200);
    expect(afterPledgeChange.body.totalPledged).toBe(400);
    const peopleNow = await read(c, people);
    expect(given(peopleNow.body)).toEqual({ [ada.id]: [400, 0], [bob.id]: [0, 50] });

    // the campaign edited: renamed, and its days moved past Bob's gift
    const edited = await call(t.app, 'POST', '/giving/campaigns', { token: staff(c), body: [{ ...campaign, name: 'New roof', startDate: '2025-03-02' }] });
    expect(edited.statusCode).toBe(200);
    const afterEdit = await read(c, page, afterPledgeChange.etag);
    expect(afterEdit.status).toBe(200);
    expect(afterEdit.body.campaign.name).toBe('New roof');
    expect(given(afterEdit.body.rows)).toEqual({ [ada.id]: [400, 0] });
    const peopleEdited = await read(c, people, peopleNow.etag);
    expect(peopleEdited.status).toBe(200);
    expect(peopleEdited.body.map((r: Row) => r.campaignName)).toEqual(['New roof']);

    // the gift removed
    const bobsGift = await give(c, { personId: bob.id, date: '2025-04-01', funds: [[building, 20]] });
    const withGift = await read(c, page);
    expect(given(withGift.body.rows)).toEqual({ [ada.id]: [400, 0], [bob.id]: [0, 20] });
    expect((await call(t.app, 'DELETE', `/giving/donations/${bobsGift}`, { token: staff(c) })).statusCode).toBe(200);
    expect(given((await read(c, page, withGift.etag)).body.rows)).toEqual({ [ada.id]: [400, 0] });

    // every answer equals a fresh reading of the rows
    const [fresh] = await campaignRows(t.app.db, c.churchId, { campaignId: campaign.id });
    expect((await read(c, page)).body).toEqual(fresh);
    expect((await read(c, people)).body).toEqual(fresh!.rows);
  });

  it('are not touched by another church’s changes, nor by a gift outside every campaign', async () => {
    const c = makeChurch();
    const other = makeChurch();
    const [building, general] = await makeFunds(t, staff(c), ['Building', 'General']);
    const [theirs] = await makeFunds(t, staff(other), ['Building']);
    const campaign = await makeCampaign(c, { name: 'Roof', fundId: building, startDate: '2025-01-01' });
    const theirCampaign = await makeCampaign(other, { name: 'Their roof', fundId: theirs, startDate: '2025-01-01' });
    const ada = makePerson('Ada', 'Alone');
    await give(c, { personId: ada.id, date: '2025-02-01', funds: [[building, 10]] });
    const page = `/giving/campaigns/${campaign.id}/progress`;
    const kept = await read(c, page);
    const keptPeople = await read(c, '/giving/campaigns/progress/people');
    const before = await version(c.churchId);

    // the other church gives, pledges and edits its campaign
    const theirDonor = makePerson('Tom', 'Theirs');
    await give(other, { personId: theirDonor.id, date: '2025-02-01', funds: [[theirs, 75]] });
    expect((await call(t.app, 'POST', '/giving/pledges', { token: staff(other), body: { campaignId: theirCampaign.id, personId: theirDonor.id, amount: 90 } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/giving/campaigns', { token: staff(other), body: [{ ...theirCampaign, name: 'Their new roof' }] })).statusCode).toBe(200);
    // and this church gives to a fund no campaign counts
    await give(c, { personId: ada.id, date: '2025-02-01', funds: [[general, 5]] });

    expect(await version(c.churchId)).toBe(before);
    expect((await read(c, page, kept.etag)).status).toBe(304);
    expect((await read(c, '/giving/campaigns/progress/people', keptPeople.etag)).status).toBe(304);
    // the other church's own answer is its new one
    const theirPage = await read(other, `/giving/campaigns/${theirCampaign.id}/progress`);
    expect(theirPage.body.campaign.name).toBe('Their new roof');
    expect(given(theirPage.body.rows)).toEqual({ [theirDonor.id]: [90, 75] });
    // another church's campaign stays a 404, kept or not
    expect((await read(c, `/giving/campaigns/${theirCampaign.id}/progress`)).status).toBe(404);
  });
});
