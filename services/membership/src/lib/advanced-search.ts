import { z } from 'zod';
import { badRequest } from '@church/common';
import { likeEscape } from './people';

// Advanced search's conditions as clients send them, and their parsed form: plain values that the SQL path
// (repos/advanced-search.ts) and the in-memory path (domain/people/advanced-match.ts) both evaluate.

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

/** Searchable fields by name, with their kind; a Map, so a caller's `constructor` or `__proto__` is simply unknown. */
const FIELDS = new Map<string, { kind: Kind }>(Object.entries({
  displayName: { kind: 'text' },
  firstName: { kind: 'text' },
  lastName: { kind: 'text' },
  middleName: { kind: 'text' },
  nickName: { kind: 'text' },
  prefix: { kind: 'text' },
  suffix: { kind: 'text' },
  email: { kind: 'text' },
  gender: { kind: 'text' },
  maritalStatus: { kind: 'text' },
  membershipStatus: { kind: 'text' },
  householdRole: { kind: 'text' },
  address1: { kind: 'text' },
  city: { kind: 'text' },
  state: { kind: 'text' },
  zip: { kind: 'text' },
  school: { kind: 'text' },
  grade: { kind: 'text' },
  phone: { kind: 'phone' },
  age: { kind: 'number' },
  birthMonth: { kind: 'number' },
  birthDay: { kind: 'number' },
  birthYear: { kind: 'number' },
  anniversaryMonth: { kind: 'number' },
  yearsMarried: { kind: 'number' },
  birthDate: { kind: 'date' },
  anniversary: { kind: 'date' },
  createdAt: { kind: 'date' },
  campusId: { kind: 'id' },
  householdId: { kind: 'id' },
  groupId: { kind: 'group' },
  groupName: { kind: 'groupName' },
  optedOut: { kind: 'boolean' },
} satisfies Record<string, { kind: Kind }>));
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
 * A condition with its field resolved and its values parsed, the one form both the SQL path (repos/advanced-search.ts)
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

/**
 * One condition checked and parsed. Text compares case-insensitively; `notEquals` also matches an empty field.
 * Invalid values answer 400 naming `[i].value` (or `[i].operator` when the field does not support the operator).
 */
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
