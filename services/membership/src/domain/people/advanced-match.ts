import type { ParsedCondition } from '../../lib/advanced-search';
import type { PersonRecord } from '../../repos/people';

/**
 * Advanced search evaluated in memory over the church's kept person records (the snapshot people searches
 * already use), with the same meaning as the SQL path (`searchCondition`): text compares lower-cased,
 * `notEquals` (SQL `is distinct from`) also matches an empty field, any other comparison with an empty field
 * is false, `between` is inclusive, ages are whole years as PostgreSQL's `age(current_date, birth_date)`.
 * Group conditions need group membership, which the records do not hold: those searches take the SQL path.
 */

const TEXT_FIELDS = [
  'displayName',
  'firstName',
  'lastName',
  'middleName',
  'nickName',
  'prefix',
  'suffix',
  'email',
  'gender',
  'maritalStatus',
  'membershipStatus',
  'householdRole',
  'address1',
  'city',
  'state',
  'zip',
  'school',
  'grade',
] as const;
type TextField = (typeof TEXT_FIELDS)[number];

/** The searched facts of every person, one column per field, in the records' order. */
export interface PeopleColumns {
  text: Record<TextField, Array<string | null>>;
  /** yyyymmdd, 0 when empty */
  birth: Int32Array;
  anniversary: Int32Array;
  /** 'YYYY-MM-DD' (UTC) or null */
  birthDate: Array<string | null>;
  anniversaryDate: Array<string | null>;
  createdAt: Array<string | null>;
  /** digits of home, mobile and work phone ('' when empty) */
  phones: Array<[string, string, string]>;
  campusId: Array<string | null>;
  householdId: Array<string | null>;
  optedOut: Uint8Array;
}

const isoDay = (d: Date | null | undefined) => (d ? d.toISOString().slice(0, 10) : null);
const ymd = (d: Date | null | undefined) => (d ? d.getUTCFullYear() * 10000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate() : 0);
const digits = (v: string | null | undefined) => (v ?? '').replace(/[^0-9]/g, '');

export function peopleColumns(rows: PersonRecord[]): PeopleColumns {
  const n = rows.length;
  const text = Object.fromEntries(TEXT_FIELDS.map((f) => [f, rows.map((r) => (r[f] == null ? null : String(r[f]).toLowerCase()))])) as PeopleColumns['text'];
  const birth = new Int32Array(n);
  const anniversary = new Int32Array(n);
  const optedOut = new Uint8Array(n);
  rows.forEach((r, i) => {
    birth[i] = ymd(r.birthDate);
    anniversary[i] = ymd(r.anniversary);
    optedOut[i] = r.optedOut ? 1 : 0;
  });
  return {
    text,
    birth,
    anniversary,
    birthDate: rows.map((r) => isoDay(r.birthDate)),
    anniversaryDate: rows.map((r) => isoDay(r.anniversary)),
    createdAt: rows.map((r) => isoDay(r.createdAt)),
    phones: rows.map((r) => [digits(r.homePhone), digits(r.mobilePhone), digits(r.workPhone)]),
    campusId: rows.map((r) => r.campusId?.toLowerCase() ?? null),
    householdId: rows.map((r) => r.householdId?.toLowerCase() ?? null),
    optedOut,
  };
}

/** Whole years from `birth` (yyyymmdd) to `today` (yyyymmdd), negative for a date to come, as PostgreSQL's age(). */
export function yearsBetween(today: number, birth: number): number {
  if (birth > today) return -yearsBetween(birth, today);
  const years = Math.floor(today / 10000) - Math.floor(birth / 10000);
  return today % 10000 < birth % 10000 ? years - 1 : years;
}

type Test = (i: number) => boolean;

/** SQL comparison semantics over a value that may be empty (`null`). */
function compare<T extends string | number>(value: (i: number) => T | null, operator: string, values: T[]): Test {
  const [a, b] = values;
  switch (operator) {
    case 'equals':
      return (i) => value(i) === a;
    case 'notEquals':
      return (i) => value(i) !== a;
    case 'greaterThan':
      return (i) => {
        const v = value(i);
        return v !== null && v > a!;
      };
    case 'greaterThanEqual':
      return (i) => {
        const v = value(i);
        return v !== null && v >= a!;
      };
    case 'lessThan':
      return (i) => {
        const v = value(i);
        return v !== null && v < a!;
      };
    case 'lessThanEqual':
      return (i) => {
        const v = value(i);
        return v !== null && v <= a!;
      };
    case 'notIn': {
      const set = new Set<T>(values);
      return (i) => {
        const v = value(i);
        return v === null || !set.has(v);
      };
    }
    case 'between':
      return (i) => {
        const v = value(i);
        return v !== null && v >= a! && v <= b!;
      };
    default: {
      const set = new Set<T>(values);
      return (i) => {
        const v = value(i);
        return v !== null && set.has(v);
      };
    }
  }
}

/**
 * One test over the people's columns for all the conditions (AND), or undefined when a condition needs data the
 * records do not hold (group membership): the caller then asks PostgreSQL.
 */
export function memoryTest(conditions: ParsedCondition[], cols: PeopleColumns, now = new Date()): Test | undefined {
  const today = ymd(now);
  const tests: Test[] = [];
  for (const c of conditions) {
    switch (c.kind) {
      case 'text': {
        const column = cols.text[c.field as TextField];
        const v = c.values[0]!;
        if (c.operator === 'contains') tests.push((i) => column[i]?.includes(v) ?? false);
        else if (c.operator === 'startsWith') tests.push((i) => column[i]?.startsWith(v) ?? false);
        else if (c.operator === 'endsWith') tests.push((i) => column[i]?.endsWith(v) ?? false);
        else tests.push(compare((i) => column[i]!, c.operator, c.values));
        break;
      }
      case 'phone': {
        const d = c.digits;
        const match =
          c.operator === 'equals'
            ? (p: string) => p === d
            : c.operator === 'startsWith'
              ? (p: string) => p.startsWith(d)
              : c.operator === 'endsWith'
                ? (p: string) => p.endsWith(d)
                : (p: string) => p.includes(d);
        tests.push((i) => cols.phones[i]!.some(match));
        break;
      }
      case 'number': {
        const date = c.field === 'anniversaryMonth' || c.field === 'yearsMarried' ? cols.anniversary : cols.birth;
        const part = new Map<string, (d: number) => number>([
          ['age', (d) => yearsBetween(today, d)],
          ['yearsMarried', (d) => yearsBetween(today, d)],
          ['birthMonth', (d) => Math.floor(d / 100) % 100],
          ['anniversaryMonth', (d) => Math.floor(d / 100) % 100],
          ['birthDay', (d) => d % 100],
          ['birthYear', (d) => Math.floor(d / 10000)],
        ]);
        const of = part.get(c.field)!;
        tests.push(compare((i) => (date[i] ? of(date[i]!) : null), c.operator, c.values));
        break;
      }
      case 'date': {
        const column = c.field === 'birthDate' ? cols.birthDate : c.field === 'anniversary' ? cols.anniversaryDate : cols.createdAt;
        tests.push(compare((i) => column[i]!, c.operator, c.values));
        break;
      }
      case 'id': {
        const column = c.field === 'campusId' ? cols.campusId : cols.householdId;
        tests.push(compare((i) => column[i]!, c.operator === 'notEquals' || c.operator === 'notIn' ? c.operator : 'in', c.values));
        break;
      }
      case 'boolean': {
        const want = c.value ? 1 : 0;
        tests.push(c.operator === 'equals' ? (i) => cols.optedOut[i] === want : (i) => cols.optedOut[i] !== want);
        break;
      }
      default:
        return undefined;
    }
  }
  return (i) => tests.every((t) => t(i));
}
