import { RRule, type Options } from 'rrule';

/** A holiday on a calendar day (`YYYY-MM-DD`). */
export interface Holiday {
  date: string;
  name: string;
}

/**
 * The holidays B1Admin's bulk group events screen offers to skip ("Skip holidays"): a fixed set of US holidays,
 * as ChurchApps' Api answers them. Each is a yearly rule of the rrule library (Easter by its `byeaster` offset).
 */
const HOLIDAYS: Array<[name: string, rule: Partial<Options>]> = [
  ["New Year's Day", { bymonth: 1, bymonthday: 1 }],
  ['Martin Luther King Jr. Day', { bymonth: 1, byweekday: RRule.MO.nth(3) }],
  ["Presidents' Day", { bymonth: 2, byweekday: RRule.MO.nth(3) }],
  ['Good Friday', { byeaster: -2 }],
  ['Easter Sunday', { byeaster: 0 }],
  ['Memorial Day', { bymonth: 5, byweekday: RRule.MO.nth(-1) }],
  ['Juneteenth', { bymonth: 6, bymonthday: 19 }],
  ['Independence Day', { bymonth: 7, bymonthday: 4 }],
  ['Labor Day', { bymonth: 9, byweekday: RRule.MO.nth(1) }],
  ['Thanksgiving', { bymonth: 11, byweekday: RRule.TH.nth(4) }],
  ['Christmas Eve', { bymonth: 12, bymonthday: 24 }],
  ['Christmas Day', { bymonth: 12, bymonthday: 25 }],
  ["New Year's Eve", { bymonth: 12, bymonthday: 31 }],
];

/** The longest window asked at once, in years (the screen plans at most 200 weeks). */
export const MAX_HOLIDAY_YEARS = 10;

const day = (date: string) => new Date(`${date}T00:00:00Z`);

/** The holidays from `start` to `end` (calendar days, both included), by date. */
export function holidaysBetween(start: string, end: string): Holiday[] {
  const from = day(start);
  const to = day(end);
  const dtstart = new Date(Date.UTC(from.getUTCFullYear(), 0, 1));
  const out = HOLIDAYS.flatMap(([name, rule]) =>
    new RRule({ ...rule, freq: RRule.YEARLY, dtstart }).between(from, to, true).map((d) => ({ date: d.toISOString().slice(0, 10), name })),
  );
  return out.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}
