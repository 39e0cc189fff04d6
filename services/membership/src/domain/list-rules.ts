import { and, eq, inArray, not, or, sql, type SQL } from 'drizzle-orm';
import { badRequest, type InternalClient } from '@church/common';
import { answers, formSubmissions, people, personFieldValues } from '../db/schema';
import { peopleWhoAttended } from '../clients/attendance';
import { donorsOf } from '../clients/giving';
import { memberOfGroups } from '../repos/people';
import { Condition, searchCondition } from './advanced-search';
import type { RuleCondition, RuleGroup } from '../schemas/lists';

export interface RuleContext {
  churchId: string;
  internal: InternalClient;
  /** another saved list's rules by id (the `list` provider), read in the caller's church and visibility */
  listRules: (id: string) => Promise<{ rules: RuleGroup | null; householdInclusion: string } | undefined>;
  depth?: number;
}

const NUMERIC = new Map([
  ['greaterThan', '>'],
  ['lessThan', '<'],
  ['greaterThanEqual', '>='],
  ['lessThanEqual', '<='],
]);
/** Attendance places by the screen's entity types. */
const PLACES = new Map<string, 'campusId' | 'serviceId' | 'serviceTimeId' | 'groupId'>([
  ['campus', 'campusId'],
  ['service', 'serviceId'],
  ['serviceTime', 'serviceTimeId'],
  ['group', 'groupId'],
]);

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const like = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A text comparison over an SQL expression (custom fields, form answers): case-insensitive. */
function compareText(expr: SQL, operator: string, value: string, at: string): SQL {
  const v = value.toLowerCase();
  switch (operator) {
    case 'equals':
      return sql`lower(${expr}) = ${v}`;
    case 'notEquals':
      return sql`lower(${expr}) <> ${v}`;
    case 'contains':
      return sql`lower(${expr}) like ${`%${like(v)}%`}`;
    case 'startsWith':
      return sql`lower(${expr}) like ${`${like(v)}%`}`;
    case 'endsWith':
      return sql`lower(${expr}) like ${`%${like(v)}`}`;
    case 'greaterThan':
    case 'lessThan':
    case 'greaterThanEqual':
    case 'lessThanEqual': {
      const n = Number(value);
      if (!Number.isFinite(n)) throw badRequest(at, `${operator} compares numbers`);
      const op = NUMERIC.get(operator)!;
      return sql`(case when ${expr} ~ '^-?[0-9]+(\\.[0-9]+)?$' then (${expr})::numeric ${sql.raw(op)} ${n} else false end)`;
    }
    default:
      throw badRequest(at, `unknown operator ${operator}`);
  }
}

const day = (v: string | null | undefined, at: string) => {
  if (!v) return undefined;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw badRequest(at, 'must be a date');
  return d.toISOString();
};

/** A `people.id = any(ids)` condition for people another module named. */
const idsIn = (ids: string[]) => (ids.length ? inArray(people.id, ids) : sql`false`);

async function conditionSql(c: RuleCondition, at: string, ctx: RuleContext): Promise<SQL> {
  const op = c.operator ?? 'equals';
  switch (c.provider) {
    case 'person': {
      const parsed = Condition.safeParse({ field: c.field, operator: op, value: c.value });
      if (!parsed.success) throw badRequest(`${at}.field`, parsed.error.issues[0]?.message ?? 'invalid condition');
      try {
        return searchCondition([parsed.data])!;
      } catch {
        throw badRequest(`${at}.value`, 'invalid value for this field and operator');
      }
    }
    case 'group': {
      const ids = text(c.entityId).split(',').map((s) => s.trim()).filter(Boolean);
      if (!ids.length || ids.some((id) => !/^[0-9a-f-]{36}$/i.test(id))) throw badRequest(`${at}.entityId`, 'a group id (or several, comma-separated) is required');
      return op === 'notIn' || op === 'notEquals' ? not(memberOfGroups(ids)) : memberOfGroups(ids);
    }
    case 'field': {
      if (!c.entityId) throw badRequest(`${at}.entityId`, 'the custom field is required');
      const match = compareText(sql`${personFieldValues.value}`, op, text(c.value), `${at}.operator`);
      return sql`exists (select 1 from ${personFieldValues} where ${personFieldValues.churchId} = ${people.churchId} and ${personFieldValues.personId} = ${people.id}
        and ${personFieldValues.fieldId}::text = ${c.entityId} and ${match})`;
    }
    case 'form': {
      if (!c.entityId) throw badRequest(`${at}.entityId`, 'the question is required');
      const match = compareText(sql`${answers.value}`, op, text(c.value), `${at}.operator`);
      return sql`exists (select 1 from ${answers} inner join ${formSubmissions} on ${formSubmissions.id} = ${answers.formSubmissionId} and ${formSubmissions.churchId} = ${answers.churchId}
        where ${answers.churchId} = ${people.churchId} and ${formSubmissions.contentType} = 'person' and ${formSubmissions.contentId} = ${people.id}::text
        and ${answers.questionId}::text = ${c.entityId} and ${match})`;
    }
    case 'attendance': {
      const place = c.entityType && c.entityId ? PLACES.get(c.entityType) : undefined;
      if (c.entityType && !place) throw badRequest(`${at}.entityType`, 'one of campus, service, serviceTime, group');
      const ids = await peopleWhoAttended(ctx.internal, { churchId: ctx.churchId, ...(place ? { [place]: c.entityId! } : {}), startDate: day(c.from, `${at}.from`), endDate: day(c.to, `${at}.to`) });
      return idsIn(ids);
    }
    case 'giving': {
      const ids = await donorsOf(ctx.internal, { churchId: ctx.churchId, ...(c.entityId ? { fundId: c.entityId } : {}), startDate: day(c.from, `${at}.from`), endDate: day(c.to, `${at}.to`) });
      return idsIn(ids);
    }
    case 'list': {
      if (!c.entityId) throw badRequest(`${at}.entityId`, 'the list is required');
      if ((ctx.depth ?? 0) >= 3) throw badRequest(`${at}.entityId`, 'lists may refer to lists at most 3 deep');
      const other = await ctx.listRules(c.entityId);
      if (!other?.rules) throw badRequest(`${at}.entityId`, 'no such list with rules');
      return rulesSql(other.rules, { ...ctx, depth: (ctx.depth ?? 0) + 1 }, at);
    }
    case 'serving':
      throw badRequest(`${at}.provider`, 'serving conditions are not supported yet');
  }
}

/** The rules tree as one SQL condition over `people` (the caller adds the church and viewer scope). */
export async function rulesSql(group: RuleGroup, ctx: RuleContext, at = 'rules'): Promise<SQL> {
  const parts: SQL[] = [];
  for (const [i, c] of (group.conditions ?? []).entries()) parts.push(await conditionSql(c, `${at}.conditions[${i}]`, ctx));
  for (const [i, g] of (group.groups ?? []).entries()) parts.push(await rulesSql(g, ctx, `${at}.groups[${i}]`));
  if (!parts.length) return group.match === 'none' ? sql`true` : group.match === 'any' ? sql`false` : sql`true`;
  if (group.match === 'any') return or(...parts)!;
  if (group.match === 'none') return not(or(...parts)!);
  return and(...parts)!;
}

/**
 * Widens matched people to their households: `household` adds everyone living with them, `children` adds the
 * children (household role `Child`) of their households. (Inside the sub-select, `people` is its own row.)
 */
export function householdSql(matched: SQL, inclusion: string | null | undefined, churchId: string): SQL {
  if (!inclusion || inclusion === 'none') return matched;
  const sameHousehold = sql`${people.householdId} in (select ${people.householdId} from ${people} where ${people.churchId} = ${churchId} and ${people.removed} = false and ${matched})`;
  return inclusion === 'children' ? or(matched, and(sameHousehold, eq(people.householdRole, 'Child')))! : or(matched, sameHousehold)!;
}
