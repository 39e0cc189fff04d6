import { createHash } from 'node:crypto';

/**
 * The shape of the seeded data and the ids the scenarios address. Every id is derived from a key, the same
 * way in TypeScript (`uid`) and in SQL (`pg_temp.uid`), so the load generator knows the ids without asking
 * the database and two runs seed identical rows.
 */
export const SHAPE = {
  churches: 100,
  /** church 0: the big church every scenario runs against */
  big: {
    people: 10_000,
    households: 3_000,
    groups: 300,
    /** groups that meet at a service time (attendance) */
    linkedGroups: 40,
    /** group 0 has this many members and is the group of the download scenario's session */
    downloadGroupMembers: 200,
    campuses: 3,
    services: 6,
    serviceTimes: 12,
    /** share of people present in a given week, and share of visits that also attend a second session */
    visitRate: 0.7,
    secondSessionRate: 0.4,
  },
  small: {
    people: 100,
    households: 30,
    groups: 10,
    linkedGroups: 3,
    campuses: 1,
    services: 1,
    serviceTimes: 2,
    visitRate: 0.85,
    secondSessionRate: 0.75,
    thirdSessionRate: 0.55,
  },
  /** weekly attendance history */
  weeks: 104,
  /** login users of the big church, all Domain Admins */
  users: 20,
  password: 'Bench-Password-2024!',
  /** a common last-name prefix (matches "Smith") */
  searchTerm: 'Smi',
  /** giving (big church only): weekly gifts over five years, allocated over eight funds */
  giving: {
    weeks: 260,
    funds: 8,
    /** chance that a person gives in a given week: 10,000 × 260 × 0.19 ≈ 494,000 donations */
    giveRate: 0.19,
    /** share of donations split over two funds */
    splitRate: 0.2,
    /** the fund of the public-total scenario: the building campaign (about 6% of allocations) */
    totalFund: 7,
    /** campaigns over the funds (campaign 0: the building campaign's last two years, the general fund's year, …) */
    campaigns: 4,
    /** people of the big church with a pledge to campaign 0 */
    pledgers: 2_000,
  },
  /** content (big church): the website, the blog, a curated calendar and the sermon archive */
  content: { pages: 40, sectionsPerPage: 8, elementsPerSection: 40, posts: 200, calendarEvents: 200, sermons: 1_000, eventGroup: 1 },
  /** doing (big church): one plan with 60 items; autofill plans of 40 positions each, candidates 300 people */
  doing: { planItems: 60, autofillPlans: 12_000, positionsPerPlan: 40, candidates: 300, teams: 10, firstCandidate: 1_000, blockedOut: 30 },
  /** messaging (big church): 10 to 99 notifications per person over 180 days, the newest 0 to 24 unread (~545,000 in all) */
  messaging: { minPerPerson: 10, maxPerPerson: 99, maxUnread: 24, notificationDays: 180 },
} as const;

/** A deterministic UUID with the version-4 layout (zod's uuid check wants a version and a variant). */
export function uid(key: string): string {
  const h = createHash('md5').update(key).digest('hex');
  const x = `${h.slice(0, 12)}4${h.slice(13, 16)}8${h.slice(17)}`;
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** SQL helpers of the seed session: the twin of `uid` and a seeded pseudo-random number in [0, 1). */
export const SQL_HELPERS = [
  `create or replace function pg_temp.uid(k text) returns uuid language sql immutable as
     $$ select overlay(overlay(md5(k) placing '4' from 13) placing '8' from 17)::uuid $$`,
  `create or replace function pg_temp.rnd(n bigint, salt int) returns float8 language sql immutable as
     $$ select (hashint8(n * 7919 + salt)::bigint & 2147483647)::float8 / 2147483648 $$`,
];

/** The Sunday that starts week `w` of the history (week weeks-1 is last week); dates in UTC. */
export function historyStart(now = new Date(), weeks: number = SHAPE.weeks): string {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const sunday = new Date(today.getTime() - today.getUTCDay() * 86_400_000);
  return new Date(sunday.getTime() - weeks * 7 * 86_400_000).toISOString().slice(0, 10);
}

/** The last whole calendar year of the giving history (the summary scenario's year). */
export const summaryYear = (now = new Date()) => now.getUTCFullYear() - 1;

const BIG = 0;

/** The ids the scenarios use. */
export const fixtures = {
  churchId: uid(`church:${BIG}`),
  churchOf: (c: number) => uid(`church:${c}`),
  userEmail: (k: number) => `bench${k}@bench.test`,
  userId: (k: number) => uid(`user:${k}`),
  personId: (i: number, church = BIG) => uid(`person:${church}:${i}`),
  groupId: (g: number, church = BIG) => uid(`group:${church}:${g}`),
  serviceId: (s: number, church = BIG) => uid(`service:${church}:${s}`),
  serviceTimeId: (t: number, church = BIG) => uid(`st:${church}:${t}`),
  sessionId: (g: number, week: number, church = BIG) => uid(`session:${church}:${g}:${week}`),
  /** check-ins go to service 0, service time 0 and group 12 (a linked group meeting at service time 0) */
  checkin: { service: 0, serviceTime: 0, group: 12 },
  fundId: (f: number, church = BIG) => uid(`fund:${church}:${f}`),
  campaignId: (c: number) => uid(`campaign:${BIG}:${c}`),
  pageUrl: (p: number) => (p === 0 ? '/' : `/page-${p}`),
  curatedCalendarId: () => uid(`calendar:${BIG}:0`),
  planId: () => uid(`plan:${BIG}:items`),
  autofillPlanId: (k: number) => uid(`plan:${BIG}:autofill:${k}`),
  positionId: (k: number, j: number) => uid(`position:${BIG}:${k}:${j}`),
  /** the last week's session of the 200-member group */
  downloadSession: () => uid(`session:${BIG}:0:${SHAPE.weeks - 1}`),
  /** live-stream chats (anonymous posts allowed): 0 is watched by the real-time bench's sockets, 1 by none */
  liveConversationId: (k: number) => uid(`conversation:${BIG}:live:${k}`),
};
