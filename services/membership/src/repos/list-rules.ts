import { and, eq, not, or, sql, type SQL } from 'drizzle-orm';
import { answers, formSubmissions, people, personFieldValues } from '../db/schema';
import type { ParsedCondition } from '../lib/advanced-search';
import { likeEscape } from '../lib/people';
import { conditionsWhere } from './advanced-search';
import { memberOfGroups, peopleScope, type PeopleFilter, type Scope } from './people';

/**
 * A comparison of a custom field's value or a form answer: text case-insensitively, or (`>`, `<`, `>=`, `<=`) as a
 * number when the stored text is one.
 */
export type TextMatch =
  | { operator: 'equals' | 'notEquals' | 'contains' | 'startsWith' | 'endsWith'; value: string }
  | { operator: '>' | '<' | '>=' | '<='; number: number };

/**
 * A saved list's rules tree once domain/list-rules.ts has checked it and asked the other modules what it needs:
 * plain values, compiled here into one condition over `people`.
 */
export type RuleNode =
  | { kind: 'person'; condition: ParsedCondition }
  | { kind: 'inGroups'; groupIds: string[]; negate: boolean }
  | { kind: 'fieldValue'; fieldId: string; match: TextMatch }
  | { kind: 'answer'; questionId: string; match: TextMatch }
  /** people another module named (attendance, giving) */
  | { kind: 'people'; ids: string[] }
  | { kind: 'group'; match: 'all' | 'any' | 'none'; parts: RuleNode[] };

/** A text comparison over an SQL expression (custom fields, form answers): case-insensitive. */
function compareText(expr: SQL, match: TextMatch): SQL {
  if ('number' in match) {
    return sql`(case when ${expr} ~ '^-?[0-9]+(\\.[0-9]+)?$' then (${expr})::numeric ${sql.raw(match.operator)} ${match.number} else false end)`;
  }
  const v = match.value.toLowerCase();
  switch (match.operator) {
    case 'equals':
      return sql`lower(${expr}) = ${v}`;
    case 'notEquals':
      return sql`lower(${expr}) <> ${v}`;
    case 'contains':
      return sql`lower(${expr}) like ${`%${likeEscape(v)}%`}`;
    case 'startsWith':
      return sql`lower(${expr}) like ${`${likeEscape(v)}%`}`;
    case 'endsWith':
      return sql`lower(${expr}) like ${`%${likeEscape(v)}`}`;
  }
}

/** A `people.id = any(ids)` condition for people another module named: one array parameter however many they are. */
const idsIn = (ids: string[]) => (ids.length ? sql`${people.id} = any(${sql.param(ids)}::uuid[])` : sql`false`);

/**
 * The rules tree as one SQL condition over `people` (the caller adds the church and viewer scope). Every condition
 * compiles to a fixed number of parameters (lists of values and ids travel as one array each).
 */
function ruleSql(node: RuleNode): SQL {
  switch (node.kind) {
    case 'person':
      return conditionsWhere([node.condition])!;
    case 'inGroups':
      return node.negate ? not(memberOfGroups(node.groupIds)) : memberOfGroups(node.groupIds);
    case 'fieldValue': {
      const match = compareText(sql`${personFieldValues.value}`, node.match);
      return sql`exists (select 1 from ${personFieldValues} where ${personFieldValues.churchId} = ${people.churchId} and ${personFieldValues.personId} = ${people.id}
        and ${personFieldValues.fieldId} = ${node.fieldId}::uuid and ${match})`;
    }
    case 'answer': {
      const match = compareText(sql`${answers.value}`, node.match);
      return sql`exists (select 1 from ${answers} inner join ${formSubmissions} on ${formSubmissions.id} = ${answers.formSubmissionId} and ${formSubmissions.churchId} = ${answers.churchId}
        where ${answers.churchId} = ${people.churchId} and ${formSubmissions.contentType} = 'person' and ${formSubmissions.contentId} = ${people.id}
        and ${answers.questionId} = ${node.questionId}::uuid and ${match})`;
    }
    case 'people':
      return idsIn(node.ids);
    case 'group': {
      const parts = node.parts.map(ruleSql);
      if (!parts.length) return node.match === 'none' ? sql`true` : node.match === 'any' ? sql`false` : sql`true`;
      if (node.match === 'any') return or(...parts)!;
      if (node.match === 'none') return not(or(...parts)!);
      return and(...parts)!;
    }
  }
}

/**
 * Widens matched people to their households: `household` adds everyone living with them, `children` adds the
 * children (household role `Child`) of their households. (Inside the sub-select, `people` is its own row.)
 */
function householdSql(matched: SQL, inclusion: string | null | undefined, churchId: string): SQL {
  if (!inclusion || inclusion === 'none') return matched;
  const sameHousehold = sql`${people.householdId} in (select ${people.householdId} from ${people} where ${people.churchId} = ${churchId} and ${people.removed} = false and ${matched})`;
  return inclusion === 'children' ? or(matched, and(sameHousehold, eq(people.householdRole, 'Child')))! : or(matched, sameHousehold)!;
}

/** The people a compiled rules tree finds (widened to households as `inclusion` says), in the church and the viewer's scope. */
export function rulesWhere(churchId: string, rules: RuleNode, inclusion: string | null | undefined, scope: Scope): PeopleFilter {
  return peopleScope(churchId, scope, householdSql(ruleSql(rules), inclusion, churchId));
}
