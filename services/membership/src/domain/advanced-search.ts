import { and, not, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { badRequest } from '@church/common';
import { people } from '../db/schema';
import { likeEscape, memberOfGroupNamed, memberOfGroups, phoneDigits } from '../repos/people';

/** The operators a condition may use; which apply depends on the field's kind (see FIELDS). */
export const OPERATORS = [
  'equals',
  'notEquals',
  'contains',
  'startsWith',
  'endsWith',
  'greaterThan',
  'greaterThanEqual',
  'lessThan',
  'lessThanEqual',
  'between',
  'in',
  'notIn',
] as const;
export type Operator = (typeof OPERATORS)[number];

type Kind = 'text' | 'phone' | 'number' | 'date' | 'id' | 'group' | 'groupName' | 'boolean';

const KIND_OPERATORS: Record<Kind, readonly Operator[]> = {
  text: ['equals', 'notEquals', 'contains', 'startsWith', 'endsWith', 'in', 'notIn'],
  phone: ['equals', 'contains', 'startsWith', 'endsWith'],
  number: ['equals', 'notEquals', 'greaterThan', 'greaterThanEqual', 'lessThan', 'lessThanEqual', 'between', 'in', 'notIn'],
  date: ['equals', 'notEquals', 'greaterThan', 'greaterThanEqual', 'lessThan', 'lessThanEqual', 'between'],
  id: ['equals', 'notEquals', 'in', 'notIn'],
  group: ['equals', 'notEquals', 'in', 'notIn'],
  groupName: ['equals', 'contains', 'startsWith'],
  boolean: ['equals', 'notEquals'],
};

const yearsSince = (column: AnyPgColumn) => sql`extract(year from age(current_date, ${column}))::int`;
const age = yearsSince(people.birthDate);
const month = (column: AnyPgColumn) => sql`extract(month from ${column})::int`;

/** Searchable fields: the SQL expression each compares and its kind. */
/** Searchable fields by name; a Map, so a caller's `constructor` or `__proto__` is simply unknown. */
const FIELDS = new Map<string, { kind: Kind; expr?: SQL }>(Object.entries({
  displayName: { kind: 'text', expr: sql`${people.displayName}` },
  firstName: { kind: 'text', expr: sql`${people.firstName}` },
  lastName: { kind: 'text', expr: sql`${people.lastName}` },
  middleName: { kind: 'text', expr: sql`${people.middleName}` },
  nickName: { kind: 'text', expr: sql`${people.nickName}` },
  prefix: { kind: 'text', expr: sql`${people.prefix}` },
  suffix: { kind: 'text', expr: sql`${people.suffix}` },
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
  yearsMarried: { kind: 'number', expr: yearsSince(people.anniversary) },
  birthDate: { kind: 'date', expr: sql`${people.birthDate}` },
  anniversary: { kind: 'date', expr: sql`${people.anniversary}` },
  createdAt: { kind: 'date', expr: sql`(${people.createdAt})::date` },
  campusId: { kind: 'id', expr: sql`${people.campusId}` },
  householdId: { kind: 'id', expr: sql`${people.householdId}` },
  groupId: { kind: 'group' },
  groupName: { kind: 'groupName' },
  optedOut: { kind: 'boolean', expr: sql`${people.optedOut}` },
} satisfies Record<string, { kind: Kind; expr?: SQL }>));
/** Other spellings clients use for a field. */
const ALIASES = new Map<string, string>(Object.entries({
  addedDate: 'createdAt',
  dateAdded: 'createdAt',
  phoneNumber: 'phone',
  anniversaryDate: 'anniversary',
  // B1Admin's advanced search
  address: 'address1',
  groupMember: 'groupId',
}));
const OPERATOR_ALIASES = new Map<string, Operator>(Object.entries({
  notEqual: 'notEquals',
  equal: 'equals',
  greaterThanOrEqual: 'greaterThanEqual',
  lessThanOrEqual: 'lessThanEqual',
} satisfies Record<string, Operator>));

export const FIELD_NAMES = [...FIELDS.keys(), ...ALIASES.keys()];

const Scalar = z.union([z.string().max(200), z.number(), z.boolean(), z.null()]);
/** One condition as clients send it: `{field, operator, value}`. */
export const Condition = z.object({
  field: z.string().refine((f) => FIELDS.has(f) || ALIASES.has(f), { message: `unknown field; one of ${FIELD_NAMES.join(', ')}` }),
  operator: z
    .string()
    .transform((o) => OPERATOR_ALIASES.get(o) ?? o)
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
  const parts = conditions.map((c, i) => conditionSql(parseCondition(c, i)));
  return parts.length ? and(...parts) : undefined;
}

/**
 * A condition with its field resolved and its values parsed, the one form both the SQL path (`searchCondition`)
 * and the in-memory path (`advanced-match.ts`) evaluate, so that both read a condition the same way.
 */
export type ParsedCondition =
  | { kind: 'text'; field: string; operator: Operator; values: string[] }
  | { kind: 'phone'; operator: Operator; digits: string }
  | { kind: 'number'; field: string; operator: Operator; values: number[] }
  | { kind: 'date'; field: string; operator: Operator; values: string[] }
  | { kind: 'id' | 'group'; field: string; operator: Operator; values: string[] }
  | { kind: 'groupName'; operator: Operator; pattern: string }
  | { kind: 'boolean'; field: string; operator: Operator; value: boolean };

export function parseCondition(c: Condition, i: number): ParsedCondition {
  const name = ALIASES.get(c.field) ?? c.field;
  const field = FIELDS.get(name)!;
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
  const listed = c.operator === 'in' || c.operator === 'notIn';
  const operands = <T>(parse: (v: unknown) => T): T[] => (listed ? values().map(parse) : c.operator === 'between' ? pair().map(parse) : [parse(single())]);
  const operator = c.operator;

  switch (field.kind) {
    case 'text':
      return { kind: 'text', field: name, operator, values: operands((v) => String(v).trim().toLowerCase()) };
    case 'phone': {
      const digits = String(single()).replace(/\D/g, '');
      if (!digits) throw fail('a phone number needs digits');
      return { kind: 'phone', operator, digits };
    }
    case 'number': {
      const num = (v: unknown) => {
        const n = name.endsWith('Month') ? (monthNumber(v) ?? Number(v)) : Number(v);
        if (!Number.isInteger(n) || Math.abs(n) > 100_000) throw fail(`${c.field} needs whole numbers`);
        return n;
      };
      return { kind: 'number', field: name, operator, values: operands(num) };
    }
    case 'date': {
      const date = (v: unknown) => {
        const d = new Date(String(v));
        if (v === true || v === false || Number.isNaN(d.getTime())) throw fail(`${c.field} needs ISO 8601 dates`);
        return d.toISOString().slice(0, 10);
      };
      return { kind: 'date', field: name, operator, values: operands(date) };
    }
    case 'id':
    case 'group': {
      const id = (v: unknown) => {
        if (!z.uuid().safeParse(v).success) throw fail('must be a UUID');
        return String(v).toLowerCase();
      };
      return { kind: field.kind, field: name, operator, values: listed ? values().map(id) : [id(single())] };
    }
    case 'groupName': {
      const v = likeEscape(String(single()).trim());
      return { kind: 'groupName', operator, pattern: c.operator === 'equals' ? v : c.operator === 'startsWith' ? `${v}%` : `%${v}%` };
    }
    case 'boolean': {
      const v = single();
      const b = v === true || v === 'true' ? true : v === false || v === 'false' ? false : undefined;
      if (b === undefined) throw fail('must be true or false');
      return { kind: 'boolean', field: name, operator, value: b };
    }
  }
}

function conditionSql(c: ParsedCondition): SQL {
  switch (c.kind) {
    case 'text': {
      const expr = FIELDS.get(c.field)!.expr!;
      if (c.operator === 'in') return sql`lower(${expr}) = any(${sql.param(c.values)}::text[])`;
      if (c.operator === 'notIn') return sql`(${expr} is null or not lower(${expr}) = any(${sql.param(c.values)}::text[]))`;
      const v = c.values[0]!;
      if (c.operator === 'equals') return sql`lower(${expr}) = ${v}`;
      if (c.operator === 'notEquals') return sql`lower(${expr}) is distinct from ${v}`;
      const pattern = c.operator === 'contains' ? `%${likeEscape(v)}%` : c.operator === 'endsWith' ? `%${likeEscape(v)}` : `${likeEscape(v)}%`;
      return sql`${expr} ilike ${pattern}`;
    }
    case 'phone': {
      const pattern = c.operator === 'equals' ? c.digits : c.operator === 'startsWith' ? `${c.digits}%` : c.operator === 'endsWith' ? `%${c.digits}` : `%${c.digits}%`;
      return or(...[people.homePhone, people.mobilePhone, people.workPhone].map((col) => sql`${phoneDigits(col)} like ${pattern}`))!;
    }
    case 'number':
      return compare(FIELDS.get(c.field)!.expr!, c.operator, c.values);
    // (dates take no `in`/`notIn`: see KIND_OPERATORS)
    case 'date':
      return compare(FIELDS.get(c.field)!.expr!, c.operator, c.values, 'date');
    case 'group':
      return c.operator === 'notEquals' || c.operator === 'notIn' ? not(memberOfGroups(c.values)) : memberOfGroups(c.values);
    case 'id': {
      const expr = FIELDS.get(c.field)!.expr!;
      if (c.operator === 'notEquals') return sql`${expr} is distinct from ${c.values[0]}::uuid`;
      if (c.operator === 'notIn') return sql`(${expr} is null or not ${expr} = any(${sql.param(c.values)}::uuid[]))`;
      return sql`${expr} = any(${sql.param(c.values)}::uuid[])`;
    }
    case 'groupName':
      return memberOfGroupNamed(c.pattern);
    case 'boolean': {
      const expr = FIELDS.get(c.field)!.expr!;
      return c.operator === 'equals' ? sql`${expr} = ${c.value}` : sql`${expr} <> ${c.value}`;
    }
  }
}

/** Comparison operators over numbers and dates; `between` is inclusive; `in`/`notIn` (numbers only) take one array parameter. */
function compare(expr: SQL, op: Operator, values: Array<string | number>, cast?: 'date'): SQL {
  const p = (v: string | number) => (cast ? sql`${v}::date` : sql`${v}`);
  switch (op) {
    case 'equals':
      return sql`${expr} = ${p(values[0]!)}`;
    case 'notEquals':
      return sql`${expr} is distinct from ${p(values[0]!)}`;
    case 'greaterThan':
      return sql`${expr} > ${p(values[0]!)}`;
    case 'greaterThanEqual':
      return sql`${expr} >= ${p(values[0]!)}`;
    case 'lessThan':
      return sql`${expr} < ${p(values[0]!)}`;
    case 'lessThanEqual':
      return sql`${expr} <= ${p(values[0]!)}`;
    case 'between':
      return sql`${expr} between ${p(values[0]!)} and ${p(values[1]!)}`;
    case 'notIn':
      return sql`(${expr} is null or not ${expr} = any(${sql.param(values)}::int[]))`;
    default:
      return sql`${expr} = any(${sql.param(values)}::int[])`;
  }
}
