import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { prepared, rowsOf, type DbOrTx } from '@church/common';
import { campaignGiftTotals, campaigns, fundDayTotals, pledges } from '../db/schema';
import { amountOf } from '../lib/money';

// Campaigns' progress, computed by PostgreSQL. What a campaign has raised is the allocations to its fund of
// complete donations whose UTC day is within the campaign's days, both ends included (`fund_donations.gift_day`,
// the day fund_day_totals counts them on). The lists sum the fund's kept daily totals over the campaign's days;
// a campaign's rows per person read what each person gave to it, kept per (campaign, person) by triggers in every
// writer's transaction (`campaign_gift_totals`, migration 0007: a row per person where the campaign's allocations
// are a row per gift). Pledges are read from `pledges_church_campaign_person_idx` with their amounts.

type CampaignRow = typeof campaigns.$inferSelect;
export type PledgeStatus = 'notStarted' | 'inProgress' | 'fulfilled' | 'beyondPledged' | 'nonPledged';

/** A campaign as the API answers it. */
export function campaignItem(row: Pick<CampaignRow, 'id' | 'fundId' | 'name' | 'description' | 'goalAmount' | 'startDate' | 'endDate' | 'showPublic' | 'allowSelfPledge'>) {
  return {
    id: row.id,
    fundId: row.fundId,
    name: row.name,
    description: row.description,
    goalAmount: row.goalAmount === null ? null : amountOf(row.goalAmount),
    startDate: row.startDate,
    endDate: row.endDate,
    showPublic: row.showPublic,
    allowSelfPledge: row.allowSelfPledge,
  };
}

const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;
/** Today as the campaigns' days are counted (UTC, as gifts are). */
const today = sql`(now() at time zone 'UTC')::date`;
/** A campaign not ended: open-ended, or its last day not past. */
const notEnded = sql`(c.end_date is null or c.end_date >= ${today})`;
/** The campaign's columns, as the readers select them (dates and money as text). */
const campaignColumns = sql`c.id, c.fund_id, c.name, c.description, c.goal_amount::text as goal_amount, c.start_date::text as start_date, c.end_date::text as end_date, c.show_public, c.allow_self_pledge`;
/** Where `campaign_gift_totals` keeps gifts without a person (its key has no null). */
const ANONYMOUS = '00000000-0000-0000-0000-000000000000';
/** A pledge's standing from `pledged` and `given` (numeric: compared exactly). */
const status = (pledged: SQL, given: SQL) =>
  sql`case when ${pledged} <= 0 then 'nonPledged' when ${given} <= 0 then 'notStarted' when ${given} < ${pledged} then 'inProgress' when ${given} = ${pledged} then 'fulfilled' else 'beyondPledged' end`;
/** Of the goal, rounded half up; null without a goal. */
const percent = (given: SQL) => sql`case when c.goal_amount > 0 then round(${given} * 100 / c.goal_amount)::int end`;

interface TotalsRaw {
  id: string;
  fund_id: string;
  name: string;
  description: string | null;
  goal_amount: string | null;
  start_date: string;
  end_date: string | null;
  show_public: boolean;
  allow_self_pledge: boolean;
  total_given: string;
  total_pledged: string;
  pledge_count: number;
  /** one campaign's page only */
  donor_count?: number;
  percent: number | null;
}

/**
 * Each campaign with its totals, in start order: what it raised from the kept daily totals of its fund over its
 * days (`fund_day_totals`: the same complete gifts by the same UTC day, a few hundred rows for a year where the
 * allocations are tens of thousands) and the pledges summed. The number of donors needs every gift and is left to
 * one campaign's page (`campaignRows`).
 */
const totalsOf = (where: SQL) =>
  prepared<TotalsRaw>(
    sql.join(
      [
        sql`select ${campaignColumns}, coalesce(g.given, 0)::text as total_given,`,
        sql`coalesce(pl.pledged, 0)::text as total_pledged, coalesce(pl.pledges, 0)::int as pledge_count, ${percent(sql`coalesce(g.given, 0)`)} as percent`,
        sql`from ${campaigns} c`,
        sql`left join lateral (select sum(t.total_amount) as given from ${fundDayTotals} t`,
        sql`  where t.church_id = c.church_id and t.fund_id = c.fund_id and t.day >= c.start_date and t.day <= coalesce(c.end_date, 'infinity'::date)) g on true`,
        sql`left join lateral (select sum(pl.amount) as pledged, count(*) as pledges from ${pledges} pl where pl.church_id = c.church_id and pl.campaign_id = c.id) pl on true`,
        sql`where c.church_id = ${p('churchId', 'uuid')} and ${where}`,
        sql`order by c.start_date, c.name, c.id`,
      ],
      sql` `,
    ),
  );
// Rendered once each: the staff list (every campaign) is the read of every visit of the campaigns page, the
// public one the member app's giving page.
const readAll = totalsOf(sql`true`);
const readPublic = totalsOf(sql`c.show_public and ${notEnded}`);

function progressOf(r: TotalsRaw) {
  return {
    campaign: campaignItem({ id: r.id, fundId: r.fund_id, name: r.name, description: r.description, goalAmount: r.goal_amount, startDate: r.start_date, endDate: r.end_date, showPublic: r.show_public, allowSelfPledge: r.allow_self_pledge }),
    totalGiven: amountOf(r.total_given),
    totalPledged: amountOf(r.total_pledged),
    pledgeCount: Number(r.pledge_count),
    ...(r.donor_count === undefined ? {} : { donorCount: Number(r.donor_count) }),
    percent: r.percent === null ? null : Number(r.percent),
  };
}

/** `GET /campaigns/progress`: every campaign of the church with its totals. */
export async function campaignsProgress(db: DbOrTx, churchId: string) {
  return (await readAll(db, { churchId })).map(progressOf);
}

/** `GET /campaigns/churchId/:churchId`: the church's public campaigns not ended, with their totals. */
export async function publicCampaignsProgress(db: DbOrTx, churchId: string) {
  return (await readPublic(db, { churchId })).map(progressOf);
}

interface RowsRaw extends TotalsRaw {
  has_row: boolean;
  person_id: string | null;
  pledge_id: string | null;
  pledged: string | null;
  given: string | null;
  status: PledgeStatus | null;
}

export interface ProgressRow {
  campaignId: string;
  campaignName: string;
  personId: string | null;
  pledgeId: string | null;
  pledgedAmount: number;
  givenAmount: number;
  status: PledgeStatus;
}

/**
 * Campaigns (all, one, or the public ones) with one row per person who pledged or gave (and one for anonymous
 * gifts), in one statement, the given amounts from the kept per-person totals; the campaigns' totals come with them (window sums over the same rows), so a
 * campaign's page is consistent with itself. `personId` narrows the rows to one person (their statement, their
 * own pledges): the totals are then that person's.
 */
export async function campaignRows(db: DbOrTx, churchId: string, opts: { campaignId?: string; personId?: string; pledgedOnly?: boolean } = {}) {
  const campaign = opts.campaignId ? sql`and id = ${opts.campaignId}` : sql``;
  const person = (column: SQL) => (opts.personId ? sql`and ${column} = ${opts.personId}` : sql``);
  const raw = rowsOf<RowsRaw>(
    await db.execute(sql`
      with c as (select * from ${campaigns} where church_id = ${churchId} ${campaign}),
      g as (select t.campaign_id, nullif(t.person_id, ${ANONYMOUS}::uuid) as person_id, sum(t.given) as amount
              from c join ${campaignGiftTotals} t on t.church_id = c.church_id and t.campaign_id = c.id ${person(sql`t.person_id`)}
             group by t.campaign_id, t.person_id having sum(t.gift_count) <> 0),
      pl as (select pl.campaign_id, pl.id, pl.person_id, pl.amount
               from c join ${pledges} pl on pl.church_id = c.church_id and pl.campaign_id = c.id ${person(sql`pl.person_id`)}),
      r as (select coalesce(pl.campaign_id, g.campaign_id) as campaign_id, coalesce(pl.person_id, g.person_id) as person_id, pl.id as pledge_id,
                   coalesce(pl.amount, 0) as pledged, coalesce(g.amount, 0) as given
              from pl full join g on g.campaign_id = pl.campaign_id and g.person_id = pl.person_id
             ${opts.pledgedOnly ? sql`where pl.id is not null` : sql``})
      select ${campaignColumns}, r.campaign_id is not null as has_row, r.person_id, r.pledge_id, r.pledged::text as pledged, r.given::text as given,
             ${status(sql`r.pledged`, sql`r.given`)} as status,
             coalesce(sum(r.given) over w, 0)::text as total_given, coalesce(sum(r.pledged) over w, 0)::text as total_pledged,
             (count(r.pledge_id) over w)::int as pledge_count, (count(*) filter (where r.person_id is not null and r.given > 0) over w)::int as donor_count,
             ${percent(sql`coalesce(sum(r.given) over w, 0)`)} as percent
        from c left join r on r.campaign_id = c.id
      window w as (partition by c.id)
       order by c.start_date, c.name, c.id, r.pledged desc, r.given desc, r.person_id nulls last`),
  );
  const out: Array<ReturnType<typeof progressOf> & { rows: ProgressRow[] }> = [];
  for (const r of raw) {
    if (out.at(-1)?.campaign.id !== r.id) out.push({ ...progressOf(r), rows: [] });
    if (!r.has_row) continue;
    out.at(-1)!.rows.push({
      campaignId: r.id,
      campaignName: r.name,
      personId: r.person_id,
      pledgeId: r.pledge_id,
      pledgedAmount: amountOf(r.pledged),
      givenAmount: amountOf(r.given),
      status: r.status!,
    });
  }
  return out;
}

/** A row of `peopleRows`, as text (`n`: the campaign's place in the campaigns' order). */
interface PeopleRaw {
  n: string;
  campaign_id: string;
  campaign_name: string;
  person_id: string | null;
  pledge_id: string | null;
  pledged: string;
  given: string;
  status: PledgeStatus;
}

/**
 * Every person's rows of the church's campaigns (the giving statements read them all), or of one person or one
 * campaign: per campaign, what each person gave from the kept per-person totals (an index-only range of
 * `campaign_gift_totals`' key, summed in its order) beside their pledge; one narrow sort by the campaign's place,
 * then the rows' order. No totals: nothing reads them here. Rendered once per set of filters.
 */
const peopleRows = (filters: { personId: boolean; campaignId: boolean }) =>
  prepared<PeopleRaw>(sql`
    with c as (select id, name, row_number() over (order by start_date, name, id) as n from ${campaigns}
                where church_id = ${p('churchId', 'uuid')} ${filters.campaignId ? sql`and id = ${p('campaignId', 'uuid')}` : sql``})
    select c.n::text as n, c.id as campaign_id, c.name as campaign_name, r.person_id, r.pledge_id, r.pledged::text as pledged, r.given::text as given,
           ${status(sql`r.pledged`, sql`r.given`)} as status
      from c cross join lateral (
        select nullif(coalesce(pl.person_id, g.person_id), ${sql.raw(`'${ANONYMOUS}'`)}::uuid) as person_id, pl.id as pledge_id,
               coalesce(pl.amount, 0) as pledged, coalesce(g.amount, 0) as given
          from (select pl.id, pl.person_id, pl.amount from ${pledges} pl where pl.church_id = ${p('churchId', 'uuid')} and pl.campaign_id = c.id
                ${filters.personId ? sql`and pl.person_id = ${p('personId', 'uuid')}` : sql``}) pl
          full join (select t.person_id, sum(t.given) as amount from ${campaignGiftTotals} t
                      where t.church_id = ${p('churchId', 'uuid')} and t.campaign_id = c.id ${filters.personId ? sql`and t.person_id = ${p('personId', 'uuid')}` : sql``}
                      group by t.person_id having sum(t.gift_count) <> 0) g on g.person_id = pl.person_id) r
     order by c.n, r.pledged desc, r.given desc, r.person_id nulls last`);
const peopleReaders = new Map([false, true].flatMap((personId) => [false, true].map((campaignId) => [`${personId}${campaignId}`, peopleRows({ personId, campaignId })] as const)));

const uuidJson = (v: string | null) => (v === null ? 'null' : `"${v}"`);

/**
 * `GET /campaigns/progress/people`: the rows `campaignRows` answers (`PledgeProgressRow`, keys in its order, money
 * as `amountOf` answers it), as JSON text written from `peopleRows`' text.
 */
export async function peopleProgressJson(db: DbOrTx, churchId: string, f: { personId?: string; campaignId?: string }): Promise<string> {
  const rows = await peopleReaders.get(`${!!f.personId}${!!f.campaignId}`)!(db, { churchId, personId: f.personId, campaignId: f.campaignId });
  const names = new Map<string, string>();
  let out = '';
  for (const r of rows) {
    let name = names.get(r.campaign_id);
    if (name === undefined) names.set(r.campaign_id, (name = JSON.stringify(r.campaign_name)));
    out += `${out ? ',' : ''}{"campaignId":"${r.campaign_id}","campaignName":${name},"personId":${uuidJson(r.person_id)},"pledgeId":${uuidJson(r.pledge_id)},`;
    out += `"pledgedAmount":${JSON.stringify(amountOf(r.pledged))},"givenAmount":${JSON.stringify(amountOf(r.given))},"status":"${r.status}"}`;
  }
  return `[${out}]`;
}

interface PageRaw extends TotalsRaw {
  donor_count: number;
  /** the rows, built and ordered by PostgreSQL as the answer carries them (parsed once by the driver) */
  rows: ProgressRow[];
}

/**
 * One campaign's page: its totals and a row per person who pledged or gave (one for anonymous gifts), the given
 * amounts from the kept per-person totals, in one prepared statement. PostgreSQL writes the rows as the JSON the
 * answer carries (keys in the answer's order, money as numeric literals, never a float on the way), so the
 * thousands of rows of a big campaign are one value to parse rather than thousands of driver rows to map; the
 * answer is the one `campaignRows` gives for the campaign (same rows, same order: `test/routes/campaigns.test.ts`).
 */
const readPage = prepared<PageRaw>(sql`
  with c as (select * from ${campaigns} where church_id = ${p('churchId', 'uuid')} and id = ${p('campaignId', 'uuid')}),
  g as (select t.person_id, sum(t.given) as amount from ${campaignGiftTotals} t
         where t.church_id = ${p('churchId', 'uuid')} and t.campaign_id = ${p('campaignId', 'uuid')}
         group by t.person_id having sum(t.gift_count) <> 0),
  pl as (select pl.id, pl.person_id, pl.amount from ${pledges} pl where pl.church_id = ${p('churchId', 'uuid')} and pl.campaign_id = ${p('campaignId', 'uuid')}),
  r as materialized (
    select nullif(coalesce(pl.person_id, g.person_id), ${sql.raw(`'${ANONYMOUS}'`)}::uuid) as person_id, pl.id as pledge_id,
           coalesce(pl.amount, 0) as pledged, coalesce(g.amount, 0) as given
      from pl full join g on g.person_id = pl.person_id)
  select ${campaignColumns},
         (select coalesce(sum(given), 0)::text from r) as total_given,
         (select coalesce(sum(pledged), 0)::text from r) as total_pledged,
         (select count(pledge_id)::int from r) as pledge_count,
         (select (count(*) filter (where person_id is not null and given > 0))::int from r) as donor_count,
         ${percent(sql`(select coalesce(sum(given), 0) from r)`)} as percent,
         (select coalesce(json_agg(json_build_object('campaignId', c.id, 'campaignName', c.name, 'personId', r.person_id, 'pledgeId', r.pledge_id,
                   'pledgedAmount', r.pledged, 'givenAmount', r.given, 'status', ${status(sql`r.pledged`, sql`r.given`)})
                   order by r.pledged desc, r.given desc, r.person_id nulls last), '[]'::json) from r) as rows
    from c`);

/** `GET /campaigns/:id/progress`: the campaign with its totals and a row per person; undefined when not the church's. */
export async function campaignPage(db: DbOrTx, churchId: string, campaignId: string) {
  const [raw] = await readPage(db, { churchId, campaignId });
  // donorCount keeps its place (progressOf writes it); set again only for its type
  return raw && { ...progressOf(raw), donorCount: Number(raw.donor_count), rows: raw.rows };
}

/** The campaigns of the church among these ids (for a pledge's check and its person's page). */
export async function campaignsByIds(db: DbOrTx, churchId: string, ids: string[]) {
  if (!ids.length) return [];
  return db.select().from(campaigns).where(and(eq(campaigns.churchId, churchId), inArray(campaigns.id, ids)));
}

/** Removes a campaign's pledges (the campaign going); answers them as they were. */
export async function deletePledgesOf(tx: DbOrTx, churchId: string, campaignId: string) {
  return tx.delete(pledges).where(and(eq(pledges.churchId, churchId), eq(pledges.campaignId, campaignId))).returning();
}

/** Whether a campaign's last day is past (UTC days, as its gifts are counted). */
export function hasEnded(campaign: Pick<CampaignRow, 'endDate'>, now = new Date()): boolean {
  return campaign.endDate !== null && campaign.endDate < now.toISOString().slice(0, 10);
}
