import { badRequest, type Actor, type DbOrTx, type InternalClient } from '@church/common';
import { peopleWhoAttended } from '../clients/attendance';
import { donorsOf } from '../clients/giving';
import type { MembershipDeps } from '../deps';
import { Condition, parseCondition } from '../lib/advanced-search';
import { rulesWhere, type RuleNode, type TextMatch } from '../repos/list-rules';
import { churchRuleIds, listsVisible } from '../repos/lists';
import type { PeopleFilter } from '../repos/people';
import { viewerOf } from './people/person';
import { RULE_BOUNDS, type RuleCondition, type RuleGroup } from '../schemas/lists';

/** Another saved list's rules by id (the `list` provider), read in the caller's church and visibility. */
export type ListLoader = (id: string) => Promise<RuleGroup | null | undefined>;

/** Where `resolveLists` reads: the lists referred to, and which named ids are the church's records. */
export interface RuleSource {
  load: ListLoader;
  owned: (ids: { group: string[]; field: string[]; form: string[] }) => Promise<Set<string>>;
}

export interface RuleContext {
  churchId: string;
  internal: InternalClient;
  /** the lists the rules refer to, read and checked by `resolveLists` */
  lists: Map<string, RuleGroup>;
}

/** Other lists' rules as the caller may see them, and the church's records (`db` is the save's transaction when saving). */
export function ruleSource(db: DbOrTx, actor: Pick<Actor, 'churchId' | 'personId'>): RuleSource {
  const personId = actor.personId ?? null;
  return {
    load: async (id) => {
      const [row] = await listsVisible(db, actor.churchId, personId, id);
      return row?.list.rules as RuleGroup | null | undefined;
    },
    owned: (ids) => churchRuleIds(db, actor.churchId, ids),
  };
}

/**
 * A rules tree as one condition over the caller's view of people, widened to households as `inclusion` says (its
 * size and references checked first), and the lists it refers to.
 */
export async function listFilter(
  deps: Pick<MembershipDeps, 'db' | 'internal'>,
  actor: Actor,
  rules: RuleGroup,
  inclusion: string | null | undefined,
): Promise<{ lists: Map<string, RuleGroup>; where: PeopleFilter }> {
  const lists = await resolveLists(rules, ruleSource(deps.db, actor));
  const tree = await compileRules(rules, { churchId: actor.churchId, internal: deps.internal, lists });
  return { lists, where: rulesWhere(actor.churchId, tree, inclusion, viewerOf(actor)) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The condition's `entityId` as a UUID, or a 400 naming it. */
function entityUuid(c: RuleCondition, at: string, what: string): string {
  const id = text(c.entityId).trim();
  if (!UUID.test(id)) throw badRequest(`${at}.entityId`, `${what} (a UUID) is required`);
  return id.toLowerCase();
}

/**
 * Reads the lists a rules tree refers to (each once) and holds the whole tree to `RULE_BOUNDS`: conditions and
 * groups counted across nesting and across every reference (a list referred to twice counts twice, as it is
 * evaluated twice), references at most `listDepth` deep and never back to a list on the way (a cycle). Each
 * failure is a 400 naming where it is (`at` for the totals). It stops at the first condition over the bound, so
 * an oversized tree costs no more than the bound to refuse.
 */
export async function resolveLists(rules: RuleGroup, source: RuleSource, at = 'rules', self?: string): Promise<Map<string, RuleGroup>> {
  const { load, owned } = source;
  const lists = new Map<string, RuleGroup>();
  // the church's records the conditions name (groups, custom fields, questions), checked together at the end
  const named: Array<{ kind: 'group' | 'field' | 'form'; id: string; at: string }> = [];
  let conditions = 0;
  let groups = 0;
  const walk = async (group: RuleGroup, chain: string[], level: number, where: string): Promise<void> => {
    for (const [i, c] of (group.conditions ?? []).entries()) {
      if (++conditions > RULE_BOUNDS.conditions) throw badRequest(at, `rules may hold at most ${RULE_BOUNDS.conditions} conditions in all, counting those of the lists they refer to`);
      const here = `${where}.conditions[${i}]`;
      if (c.provider === 'group') for (const id of groupIdsOf(c, here)) named.push({ kind: 'group', id, at: here });
      if (c.provider === 'field') named.push({ kind: 'field', id: entityUuid(c, here, 'the custom field'), at: here });
      if (c.provider === 'form') named.push({ kind: 'form', id: entityUuid(c, here, 'the question'), at: here });
      if (c.provider !== 'list') continue;
      const id = entityUuid(c, here, 'the list');
      if (chain.includes(id)) throw badRequest(`${here}.entityId`, 'a list cannot refer to itself, directly or through other lists');
      if (chain.length - base >= RULE_BOUNDS.listDepth) throw badRequest(`${here}.entityId`, `lists may refer to lists at most ${RULE_BOUNDS.listDepth} deep`);
      if (!lists.has(id)) {
        const other = await load(id);
        if (!other) throw badRequest(`${here}.entityId`, 'no such list with rules');
        lists.set(id, other);
      }
      await walk(lists.get(id)!, [...chain, id], 1, here);
    }
    for (const [j, g] of (group.groups ?? []).entries()) {
      if (++groups > RULE_BOUNDS.groups) throw badRequest(at, `rules may hold at most ${RULE_BOUNDS.groups} groups in all, counting those of the lists they refer to`);
      if (level >= RULE_BOUNDS.nesting) throw badRequest(`${where}.groups[${j}]`, `groups may be nested at most ${RULE_BOUNDS.nesting} levels deep`);
      await walk(g, chain, level + 1, `${where}.groups[${j}]`);
    }
  };
  // `chain` starts with the list being saved (if any), so that its own id is a cycle; its length past that is the depth.
  const base = self ? 1 : 0;
  await walk(rules, self ? [self] : [], 1, at);
  const ours = await owned({ group: idsOfKind(named, 'group'), field: idsOfKind(named, 'field'), form: idsOfKind(named, 'form') });
  const foreign = named.find((n) => !ours.has(n.id));
  if (foreign) throw badRequest(`${foreign.at}.entityId`, `no such ${foreign.kind === 'form' ? 'question' : foreign.kind === 'field' ? 'custom field' : 'group'} in this church`);
  return lists;
}

const idsOfKind = (named: Array<{ kind: string; id: string }>, kind: string) => [...new Set(named.filter((n) => n.kind === kind).map((n) => n.id))];

/** A `group` condition's group ids (one or several, comma-separated), or a 400 naming it. */
function groupIdsOf(c: RuleCondition, at: string): string[] {
  const ids = text(c.entityId).split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (!ids.length || ids.some((id) => !UUID.test(id))) throw badRequest(`${at}.entityId`, 'a group id (or several, comma-separated) is required');
  return ids;
}

const NUMERIC = new Map([
  ['greaterThan', '>'],
  ['lessThan', '<'],
  ['greaterThanEqual', '>='],
  ['lessThanEqual', '<='],
] as const);
const TEXT_OPERATORS = new Set(['equals', 'notEquals', 'contains', 'startsWith', 'endsWith'] as const);
/** Attendance places by the screen's entity types. */
const PLACES = new Map<string, 'campusId' | 'serviceId' | 'serviceTimeId' | 'groupId'>([
  ['campus', 'campusId'],
  ['service', 'serviceId'],
  ['serviceTime', 'serviceTimeId'],
  ['group', 'groupId'],
]);

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));

/** A comparison of a custom field's value or a form answer: text case-insensitively, numbers as numbers (400 naming `at`). */
function textMatch(operator: string, value: string, at: string): TextMatch {
  if (TEXT_OPERATORS.has(operator as never)) return { operator: operator as Extract<TextMatch, { value: string }>['operator'], value };
  const op = NUMERIC.get(operator as never);
  if (!op) throw badRequest(at, `unknown operator ${operator}`);
  const n = Number(value);
  if (!Number.isFinite(n)) throw badRequest(at, `${operator} compares numbers`);
  return { operator: op, number: n };
}

const day = (v: string | null | undefined, at: string) => {
  if (!v) return undefined;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw badRequest(at, 'must be a date');
  return d.toISOString();
};

async function compileCondition(c: RuleCondition, at: string, ctx: RuleContext): Promise<RuleNode> {
  const op = c.operator ?? 'equals';
  switch (c.provider) {
    case 'person': {
      const parsed = Condition.safeParse({ field: c.field, operator: op, value: c.value });
      if (!parsed.success) throw badRequest(`${at}.field`, parsed.error.issues[0]?.message ?? 'invalid condition');
      try {
        return { kind: 'person', condition: parseCondition(parsed.data, 0) };
      } catch {
        throw badRequest(`${at}.value`, 'invalid value for this field and operator');
      }
    }
    case 'group':
      return { kind: 'inGroups', groupIds: groupIdsOf(c, at), negate: op === 'notIn' || op === 'notEquals' };
    case 'field': {
      const fieldId = entityUuid(c, at, 'the custom field');
      return { kind: 'fieldValue', fieldId, match: textMatch(op, text(c.value), `${at}.operator`) };
    }
    case 'form': {
      const questionId = entityUuid(c, at, 'the question');
      return { kind: 'answer', questionId, match: textMatch(op, text(c.value), `${at}.operator`) };
    }
    case 'attendance': {
      const place = c.entityType && c.entityId ? PLACES.get(c.entityType) : undefined;
      if (c.entityType && !place) throw badRequest(`${at}.entityType`, 'one of campus, service, serviceTime, group');
      const placeId = place ? entityUuid(c, at, `the ${c.entityType}`) : undefined;
      const ids = await peopleWhoAttended(ctx.internal, { churchId: ctx.churchId, ...(place ? { [place]: placeId } : {}), startDate: day(c.from, `${at}.from`), endDate: day(c.to, `${at}.to`) });
      return { kind: 'people', ids };
    }
    case 'giving': {
      const fundId = c.entityId ? entityUuid(c, at, 'the fund') : undefined;
      const ids = await donorsOf(ctx.internal, { churchId: ctx.churchId, ...(fundId ? { fundId } : {}), startDate: day(c.from, `${at}.from`), endDate: day(c.to, `${at}.to`) });
      return { kind: 'people', ids };
    }
    case 'list': {
      const other = ctx.lists.get(entityUuid(c, at, 'the list'));
      // resolveLists read every list the tree refers to (or refused the tree) before it is compiled
      if (!other) throw badRequest(`${at}.entityId`, 'no such list with rules');
      return compileRules(other, ctx, at);
    }
    case 'serving':
      throw badRequest(`${at}.provider`, 'serving conditions are not supported yet');
  }
}

/**
 * The rules tree checked and resolved into plain values (repos/list-rules.ts makes it one condition over `people`),
 * after `resolveLists` has checked its size and read the lists it refers to: each condition's values parsed (a 400
 * naming where it is), the people of attendance and giving conditions asked of those modules, in the tree's order.
 */
export async function compileRules(group: RuleGroup, ctx: RuleContext, at = 'rules'): Promise<RuleNode> {
  const parts: RuleNode[] = [];
  for (const [i, c] of (group.conditions ?? []).entries()) parts.push(await compileCondition(c, `${at}.conditions[${i}]`, ctx));
  for (const [i, g] of (group.groups ?? []).entries()) parts.push(await compileRules(g, ctx, `${at}.groups[${i}]`));
  return { kind: 'group', match: group.match, parts };
}

/** Providers whose conditions read only people, groups and group members: what the church's data version covers. */
const VERSIONED = new Set(['person', 'group', 'list']);

/**
 * Whether the tree, and every list it refers to (`lists`, from `resolveLists`), reads only data under the church's
 * data version, so that its answer may be kept per version (and day: ages). Custom fields, form answers,
 * attendance and giving are not under it.
 */
export function versionedRules(group: RuleGroup, lists: Map<string, RuleGroup>): boolean {
  const walk = (g: RuleGroup): boolean => (g.conditions ?? []).every((c) => VERSIONED.has(c.provider)) && (g.groups ?? []).every(walk);
  return walk(group) && [...lists.values()].every(walk);
}
