import { and, inArray, not, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { badRequest } from '@church/common';
import { people } from '../db/schema';
import { likeEscape, memberOfGroupNamed, memberOfGroups, phoneDigits } from '../repos/people';

/** The operators a condition may use; which apply depends on the field's kind (see FIELDS). */
export const OPERATORS = ['equals', 'notEquals', 'contains', 'startsWith', 'greaterThan', 'lessThan', 'between', 'in'] as const;
export type Operator = (typeof OPERATORS)[number];

type Kind = 'text' | 'phone' | 'number' | 'date' | 'id' | 'group' | 'groupName' | 'boolean';

const KIND_OPERATORS: Record<Kind, readonly Operator[]> = {
  text: ['equals', 'notEquals', 'contains', 'startsWith', 'in'],
  phone: ['equals', 'contains', 'startsWith'],
  number: ['equals', 'notEquals', 'greaterThan', 'lessThan', 'between', 'in'],
  date: ['equals', 'notEquals', 'greaterThan', 'lessThan', 'between'],
  id: ['equals', 'notEquals', 'in'],
  group: ['equals', 'notEquals', 'in'],
  groupName: ['equals', 'contains', 'startsWith'],
  boolean: ['equals', 'notEquals'],
};

const age = sql`extract(year from age(current_date, ${people.birthDate}))::int`;
const month = (column: AnyPgColumn) => sql`extract(month from ${column})::int`;

/** Searchable fields: the SQL expression each compares and its kind. */
const FIELDS: Record<string, { kind: Kind; expr?: SQL }> = {
  displayName: { kind: 'text', expr: sql`${people.displayName}` },
  firstName: { kind: 'text', expr: sql`${people.firstName}` },
  lastName: { kind: 'text', expr: sql`${people.lastName}` },
  middleName: { kind: 'text', expr: sql`${people.middleName}` },
  nickName: { kind: 'text', expr: sql`${people.nickName}` },
  email: { kind: 'text', expr: sql`${people.email}` },
  gender: { kind: 'text', expr: sql`${people.gender}` },
  maritalStatus: { kind: 'text', expr: sql`${people.maritalStatus}` },
  membershipStatus: { kind: 'text', expr: sql`${people.membershipStatus}` },
  householdRole: { kind: 'text', expr: sql`${people.householdRole}` },
  address1: { kind: 'text', expr: sql`${people.address1}` },
  city: { kind: 'text', expr: sql`${people.city}` },
  state: { kind: 'text', expr: sql`${people.state}` },
  zip: { kind: 'text', expr: sql`${people.zip}` },
  school: { kind: 'text', expr: sql`${people.school}` },
  grade: { kind: 'text', expr: sql`${people.grade}` },
  phone: { kind: 'phone' },
  age: { kind: 'number', expr: age },
  birthMonth: { kind: 'number', expr: month(people.birthDate) },
  birthDay: { kind: 'number', expr: sql`extract(day from ${people.birthDate})::int` },
  birthYear: { kind: 'number', expr: sql`extract(year from ${people.birthDate})::int` },
  anniversaryMonth: { kind: 'number', expr: month(people.anniversary) },
  birthDate: { kind: 'date', expr: sql`${people.birthDate}` },
  anniversary: { kind: 'date', expr: sql`${people.anniversary}` },
  createdAt: { kind: 'date', expr: sql`(${people.createdAt})::date` },
  campusId: { kind: 'id', expr: sql`${people.campusId}` },
  householdId: { kind: 'id', expr: sql`${people.householdId}` },
  groupId: { kind: 'group' },
  groupName: { kind: 'groupName' },
  optedOut: { kind: 'boolean', expr: sql`${people.optedOut}` },
};
/** Other spellings clients use for a field. */
const ALIASES: Record<string, string> = { addedDate: 'createdAt', dateAdded: 'createdAt', phoneNumber: 'phone', anniversaryDate: 'anniversary' };
const OPERATOR_ALIASES: Record<string, Operator> = { notEqual: 'notEquals', equal: 'equals' };

export const FIELD_NAMES = [...Object.keys(FIELDS), ...Object.keys(ALIASES)];

const Scalar = z.union([z.string().max(200), z.number(), z.boolean(), z.null()]);
/** One condition as clients send it: `{field, operator, value}`. */
export const Condition = z.object({
  field: z.string().refine((f) => f in FIELDS || f in ALIASES, { message: `unknown field; one of ${FIELD_NAMES.join(', ')}` }),
  operator: z
    .string()
    .transform((o) => OPERATOR_ALIASES[o] ?? o)
    .pipe(z.enum(OPERATORS, { message: `one of ${OPERATORS.join(', ')}` })),
  value: z.union([Scalar, z.array(Scalar).max(500)]).optional(),
});
export type Condition = z.output<typeof Condition>;

/** The advanced-search body: an array of conditions, or `{conditions: [...]}` as `query/members` answers. */
export const ConditionList = z.preprocess(
  (v) => (v && typeof v === 'object' && !Array.isArray(v) && 'conditions' in v ? (v as { conditions: unknown }).conditions : v),
  z.array(Condition).max(50),
);

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** A month number from 1-12 or a month name ("May", "sep"). */
export function monthNumber(value: unknown): number | undefined {
  if (typeof value === 'string' && /^[a-z]{3,}$/i.test(value.trim())) {
    const i = MONTHS.findIndex((m) => m.startsWith(value.trim().toLowerCase()));
    return i >= 0 ? i + 1 : undefined;
  }
  return undefined;
}

/**
 * All conditions combined with AND into one SQL condition over `people` (the caller adds church scope).
 * Text compares case-insensitively; `notEquals` also matches an empty field. Invalid values answer 400
 * naming `[i].value` (or `[i].operator` when the field does not support the operator).
 */
export function searchCondition(conditions: Condition[]): SQL | undefined {
  const parts = conditions.map((c, i) => conditionSql(c, i));
  return parts.length ? and(...parts) : undefined;
}

function conditionSql(c: Condition, i: number): SQL {
  const name = ALIASES[c.field] ?? c.field;
  const field = FIELDS[name]!;
  if (!KIND_OPERATORS[field.kind].includes(c.operator)) {
    throw badRequest(`[${i}].operator`, `${c.field} supports ${KIND_OPERATORS[field.kind].join(', ')}`);
  }
  const fail = (msg: string) => badRequest(`[${i}].value`, msg);
  const values = (): unknown[] => {
    const list = Array.isArray(c.value) ? c.value : typeof c.value === 'string' ? c.value.split(',').map((s) => s.trim()) : [c.value];
    const kept = list.filter((v) => v !== null && v !== undefined && v !== '');
    if (!kept.length) throw fail('a list of values is required');
    return kept;
  };
  const single = (): unknown => {
    if (c.value === undefined || c.value === null || Array.isArray(c.value)) throw fail('a single value is required');
    return c.value;
  };
  const pair = (): [unknown, unknown] => {
    const list = values();
    if (list.length !== 2) throw fail('between needs two values [from, to]');
    return [list[0], list[1]];
  };

  switch (field.kind) {
    case 'text': {
      const expr = field.expr!;
      const text = (v: unknown) => String(v).trim().toLowerCase();
      if (c.operator === 'in') return inArray(sql`lower(${expr})`, values().map(text));
      const v = text(single());
      if (c.operator === 'equals') return sql`lower(${expr}) = ${v}`;
      if (c.operator === 'notEquals') return sql`lower(${expr}) is distinct from ${v}`;
      return sql`${expr} ilike ${c.operator === 'contains' ? `%${likeEscape(v)}%` : `${likeEscape(v)}%`}`;
    }
    case 'phone': {
      const digits = String(single()).replace(/\D/g, '');
      if (!digits) throw fail('a phone number needs digits');
      const pattern = c.operator === 'equals' ? digits : c.operator === 'startsWith' ? `${digits}%` : `%${digits}%`;
      return or(...[people.homePhone, people.mobilePhone, people.workPhone].map((col) => sql`${phoneDigits(col)} like ${pattern}`))!;
    }
    case 'number': {
      const num = (v: unknown) => {
        const n = name.endsWith('Month') ? (monthNumber(v) ?? Number(v)) : Number(v);
        if (!Number.isInteger(n) || Math.abs(n) > 100_000) throw fail(`${c.field} needs whole numbers`);
        return n;
      };
      return compare(field.expr!, c.operator, num, single, values, pair);
    }
    case 'date': {
      const date = (v: unknown) => {
        const d = new Date(String(v));
        if (v === true || v === false || Number.isNaN(d.getTime())) throw fail(`${c.field} needs ISO 8601 dates`);
        return d.toISOString().slice(0, 10);
      };
      return compare(field.expr!, c.operator, date, single, values, pair, 'date');
    }
    case 'id':
    case 'group': {
      const id = (v: unknown) => {
        if (!z.uuid().safeParse(v).success) throw fail('must be a UUID');
        return String(v);
      };
      const ids = c.operator === 'in' ? values().map(id) : [id(single())];
      if (field.kind === 'group') return c.operator === 'notEquals' ? not(memberOfGroups(ids)) : memberOfGroups(ids);
      if (c.operator === 'notEquals') return sql`${field.expr} is distinct from ${ids[0]}::uuid`;
      return inArray(field.expr!, ids);
    }
    case 'groupName': {
      const v = likeEscape(String(single()).trim());
      return memberOfGroupNamed(c.operator === 'equals' ? v : c.operator === 'startsWith' ? `${v}%` : `%${v}%`);
    }
    case 'boolean': {
      const v = single();
      const b = v === true || v === 'true' ? true : v === false || v === 'false' ? false : undefined;
      if (b === undefined) throw fail('must be true or false');
      return c.operator === 'equals' ? sql`${field.expr} = ${b}` : sql`${field.expr} <> ${b}`;
    }
  }
}

/** Comparison operators over numbers and dates; `between` is inclusive. */
function compare<T>(expr: SQL, op: Operator, parse: (v: unknown) => T, single: () => unknown, values: () => unknown[], pair: () => [unknown, unknown], cast?: 'date'): SQL {
  const p = (v: unknown) => (cast ? sql`${parse(v)}::date` : sql`${parse(v)}`);
  switch (op) {
    case 'equals':
      return sql`${expr} = ${p(single())}`;
    case 'notEquals':
      return sql`${expr} is distinct from ${p(single())}`;
    case 'greaterThan':
      return sql`${expr} > ${p(single())}`;
    case 'lessThan':
      return sql`${expr} < ${p(single())}`;
    case 'between': {
      const [from, to] = pair();
      return sql`${expr} between ${p(from)} and ${p(to)}`;
    }
    default:
      return sql`${expr} in (${sql.join(values().map(p), sql`, `)})`;
  }
}
