import type { PersonFacts } from '@church/common';

/**
 * Automation conditions over membership's people facts, and AND/OR trees of them. Pure: `today` is given
 * (`YYYY-MM-DD`, the day the check runs for), so a test names the day it means.
 */

export interface ConditionLike {
  id: string;
  conjunctionId: string | null;
  field: string;
  fieldData: string | null;
  operator: string;
  value: string | null;
}
export interface ConjunctionLike {
  id: string;
  parentId: string | null;
  groupType: string;
}

const TEXT_FIELDS = ['displayName', 'firstName', 'lastName', 'email', 'mobilePhone', 'gender', 'maritalStatus', 'membershipStatus', 'campusId', 'householdId', 'birthDate', 'anniversary'] as const;
const NUMBER_FIELDS = ['birthMonth', 'birthDay', 'birthYear', 'age', 'daysUntilBirthday', 'anniversaryMonth', 'anniversaryDay', 'yearsMarried', 'daysUntilAnniversary'] as const;
/** Every field a condition may test: person fields, date parts, group membership and `today`. */
export const CONDITION_FIELDS: readonly string[] = [...TEXT_FIELDS, ...NUMBER_FIELDS, 'groupMember', 'today'];
export const TODAY_PARTS = ['date', 'dayOfWeek', 'dayOfMonth', 'month', 'monthDay'] as const;

interface DateParts {
  year: number;
  month: number;
  day: number;
}
const partsOf = (value: string | null): DateParts | null => {
  const m = value ? /^(\d{4})-(\d{2})-(\d{2})/.exec(value) : null;
  return m ? { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) } : null;
};

/** Full years from `from` to `today`. */
function yearsSince(from: DateParts, today: DateParts): number {
  return today.year - from.year - (today.month < from.month || (today.month === from.month && today.day < from.day) ? 1 : 0);
}

/** Days until the next yearly return of `d` (0 on the day itself); 29 February falls on 28 February in other years. */
function daysUntil(d: DateParts, today: DateParts): number {
  const t = Date.UTC(today.year, today.month - 1, today.day);
  for (const year of [today.year, today.year + 1]) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    const day = d.month === 2 && d.day === 29 && !leap ? 28 : d.day;
    const at = Date.UTC(year, d.month - 1, day);
    if (at >= t) return Math.round((at - t) / 86_400_000);
  }
  return 366;
}

function fieldValue(person: PersonFacts, field: string, today: DateParts): string | number | null {
  const birth = partsOf(person.birthDate);
  const anniversary = partsOf(person.anniversary);
  switch (field) {
    case 'birthMonth':
      return birth?.month ?? null;
    case 'birthDay':
      return birth?.day ?? null;
    case 'birthYear':
      return birth?.year ?? null;
    case 'age':
      return birth ? yearsSince(birth, today) : null;
    case 'daysUntilBirthday':
      return birth ? daysUntil(birth, today) : null;
    case 'anniversaryMonth':
      return anniversary?.month ?? null;
    case 'anniversaryDay':
      return anniversary?.day ?? null;
    case 'yearsMarried':
      return anniversary ? yearsSince(anniversary, today) : null;
    case 'daysUntilAnniversary':
      return anniversary ? daysUntil(anniversary, today) : null;
    case 'birthDate':
      return person.birthDate?.slice(0, 10) ?? null;
    case 'anniversary':
      return person.anniversary?.slice(0, 10) ?? null;
    default:
      return (TEXT_FIELDS as readonly string[]).includes(field) ? ((person as unknown as Record<string, string | null>)[field] ?? null) : null;
  }
}

function todayValue(part: string | null, today: string): string | number {
  const d = partsOf(today)!;
  switch (part) {
    case 'dayOfWeek':
      return new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay();
    case 'dayOfMonth':
      return d.day;
    case 'month':
      return d.month;
    case 'monthDay':
      return today.slice(5, 10);
    default:
      return today;
  }
}

/** Compares as numbers when both sides are numbers, else as case-insensitive text. */
export function compare(actual: string | number | null, operator: string, expected: string | null): boolean {
  const empty = actual === null || actual === '';
  if (operator === 'isEmpty') return empty;
  if (operator === 'isNotEmpty') return !empty;
  if (empty) return operator === '!=' || operator === 'notIn' ? expected !== null && expected !== '' : false;
  const want = (expected ?? '').trim();
  const list = want.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const a = String(actual).toLowerCase();
  const numeric = typeof actual === 'number' || (/^-?\d+(\.\d+)?$/.test(a) && /^-?\d+(\.\d+)?$/.test(want));
  const cmp = numeric ? Number(actual) - Number(want) : a < want.toLowerCase() ? -1 : a > want.toLowerCase() ? 1 : 0;
  switch (operator) {
    case '=':
      return numeric ? cmp === 0 : a === want.toLowerCase();
    case '!=':
      return numeric ? cmp !== 0 : a !== want.toLowerCase();
    case '>':
      return cmp > 0;
    case '>=':
      return cmp >= 0;
    case '<':
      return cmp < 0;
    case '<=':
      return cmp <= 0;
    case 'contains':
      return a.includes(want.toLowerCase());
    case 'startsWith':
      return a.startsWith(want.toLowerCase());
    case 'endsWith':
      return a.endsWith(want.toLowerCase());
    case 'in':
      return list.includes(numeric ? String(Number(actual)) : a);
    case 'notIn':
      return !list.includes(numeric ? String(Number(actual)) : a);
    default:
      return false;
  }
}

/** One condition for one person on `today`. */
export function conditionHolds(c: ConditionLike, person: PersonFacts, today: string): boolean {
  if (c.field === 'today') return compare(todayValue(c.fieldData, today), c.operator, c.value);
  if (c.field === 'groupMember') {
    const member = (c.value ?? '')
      .split(',')
      .map((s) => s.trim())
      .some((g) => person.groupIds.includes(g));
    return c.operator === '!=' || c.operator === 'notIn' ? !member : member;
  }
  return compare(fieldValue(person, c.field, partsOf(today)!), c.operator, c.value);
}

/**
 * Compiles an automation's tree into a test of one person. Conjunctions combine their conditions and child
 * conjunctions with AND or OR; everything at the top level (root conjunctions and conditions outside any
 * conjunction) is ANDed. An empty group matches nobody, and so does an automation without conditions: an
 * automation never reaches the whole church by accident.
 */
export function compileTree(conditions: ConditionLike[], conjunctions: ConjunctionLike[]): (person: PersonFacts, today: string) => boolean {
  const known = new Set(conjunctions.map((j) => j.id));
  const childrenOf = (parent: string | null) => ({
    conditions: conditions.filter((c) => (parent === null ? !c.conjunctionId || !known.has(c.conjunctionId) : c.conjunctionId === parent)),
    groups: conjunctions.filter((j) => (parent === null ? !j.parentId || !known.has(j.parentId) : j.parentId === parent) && j.id !== parent),
  });
  type Test = (p: PersonFacts, today: string) => boolean;
  const build = (parent: string | null, mode: 'and' | 'or', seen: Set<string>): Test | null => {
    const kids = childrenOf(parent);
    const tests: Test[] = kids.conditions.map((c) => (p, today) => conditionHolds(c, p, today));
    for (const g of kids.groups) {
      if (seen.has(g.id)) continue; // a cycle in stored parents is cut, not followed forever
      const sub = build(g.id, g.groupType.toLowerCase() === 'or' ? 'or' : 'and', new Set([...seen, g.id]));
      tests.push(sub ?? (() => false));
    }
    if (!tests.length) return null;
    return mode === 'and' ? (p, t) => tests.every((f) => f(p, t)) : (p, t) => tests.some((f) => f(p, t));
  };
  return build(null, 'and', new Set()) ?? (() => false);
}

/** The window a `recurs` setting allows one run per person in: `once`, the Sunday-started week, the month, the year. */
export function periodOf(recurs: string, today: string): string {
  switch (recurs) {
    case 'weekly': {
      const d = new Date(`${today}T00:00:00Z`);
      d.setUTCDate(d.getUTCDate() - d.getUTCDay());
      return `week:${d.toISOString().slice(0, 10)}`;
    }
    case 'monthly':
      return `month:${today.slice(0, 7)}`;
    case 'yearly':
      return `year:${today.slice(0, 4)}`;
    default:
      return 'once';
  }
}
