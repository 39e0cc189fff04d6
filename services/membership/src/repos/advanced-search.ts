import { and, not, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '@church/common';
import { people } from '../db/schema';
import type { ParsedCondition, Operator } from '../lib/advanced-search';
import { likeEscape } from '../lib/people';
import { memberOfGroupNamed, memberOfGroups, peopleScope, peopleWhere, phoneDigits, type PeopleFilter, type PersonRecord, type Scope } from './people';

// Advanced search in SQL: conditions parsed by `parseCondition` (lib/advanced-search.ts) as conditions over `people`.

const yearsSince = (column: AnyPgColumn) => sql`extract(year from age(current_date, ${column}))::int`;
const month = (column: AnyPgColumn) => sql`extract(month from ${column})::int`;

/** The SQL expression each searchable field compares (phone and group fields have their own conditions). */
const EXPRESSIONS = new Map<string, SQL>(Object.entries({
  displayName: sql`${people.displayName}`,
  firstName: sql`${people.firstName}`,
  lastName: sql`${people.lastName}`,
  middleName: sql`${people.middleName}`,
  nickName: sql`${people.nickName}`,
  prefix: sql`${people.prefix}`,
  suffix: sql`${people.suffix}`,
  email: sql`${people.email}`,
  gender: sql`${people.gender}`,
  maritalStatus: sql`${people.maritalStatus}`,
  membershipStatus: sql`${people.membershipStatus}`,
  householdRole: sql`${people.householdRole}`,
  address1: sql`${people.address1}`,
  city: sql`${people.city}`,
  state: sql`${people.state}`,
  zip: sql`${people.zip}`,
  school: sql`${people.school}`,
  grade: sql`${people.grade}`,
  age: yearsSince(people.birthDate),
  birthMonth: month(people.birthDate),
  birthDay: sql`extract(day from ${people.birthDate})::int`,
  birthYear: sql`extract(year from ${people.birthDate})::int`,
  anniversaryMonth: month(people.anniversary),
  yearsMarried: yearsSince(people.anniversary),
  birthDate: sql`${people.birthDate}`,
  anniversary: sql`${people.anniversary}`,
  createdAt: sql`(${people.createdAt})::date`,
  campusId: sql`${people.campusId}`,
  householdId: sql`${people.householdId}`,
  optedOut: sql`${people.optedOut}`,
} satisfies Record<string, SQL>));

/** All conditions combined with AND into one SQL condition over `people` (the caller adds church scope). */
export function conditionsWhere(conditions: ParsedCondition[]): SQL | undefined {
  const parts = conditions.map(conditionSql);
  return parts.length ? and(...parts) : undefined;
}

/** Advanced-search conditions as one condition within the church and the viewer's scope. */
export function advancedWhere(churchId: string, conditions: ParsedCondition[], scope: Scope): PeopleFilter {
  return peopleScope(churchId, scope, conditionsWhere(conditions));
}

/** The people advanced-search conditions find, within the church and the viewer's scope. */
export function advancedSearch(db: DbOrTx, churchId: string, conditions: ParsedCondition[], scope: Scope): Promise<PersonRecord[]> {
  return peopleWhere(db, advancedWhere(churchId, conditions, scope));
}

function conditionSql(c: ParsedCondition): SQL {
  switch (c.kind) {
    case 'text': {
      const expr = EXPRESSIONS.get(c.field)!;
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
      return compare(EXPRESSIONS.get(c.field)!, c.operator, c.values);
    // (dates take no `in`/`notIn`: see KIND_OPERATORS)
    case 'date':
      return compare(EXPRESSIONS.get(c.field)!, c.operator, c.values, 'date');
    case 'group':
      return c.operator === 'notEquals' || c.operator === 'notIn' ? not(memberOfGroups(c.values)) : memberOfGroups(c.values);
    case 'id': {
      const expr = EXPRESSIONS.get(c.field)!;
      if (c.operator === 'notEquals') return sql`${expr} is distinct from ${c.values[0]}::uuid`;
      if (c.operator === 'notIn') return sql`(${expr} is null or not ${expr} = any(${sql.param(c.values)}::uuid[]))`;
      return sql`${expr} = any(${sql.param(c.values)}::uuid[])`;
    }
    case 'groupName':
      return memberOfGroupNamed(c.pattern);
    case 'boolean': {
      const expr = EXPRESSIONS.get(c.field)!;
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
