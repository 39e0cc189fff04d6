import { and, eq, ilike, type SQL } from 'drizzle-orm';
import type { Db } from '@church/common';
import { groups } from '../db/schema';
import { conditionsFromChat, type ChatCompletionsOptions } from '../providers/chat-completions';
import { likeEscape, peopleScope, peopleWhere, type Scope } from '../repos/people';
import { searchCondition, type Condition } from './advanced-search';
import { parseMemberQuery } from './member-query';
import type { PersonRecord } from './person';

export interface MemberQueryResult {
  conditions: Condition[];
  people: PersonRecord[];
  /** who read the text: the deterministic parser or the configured chat model */
  source: 'parser' | 'ai';
}

/** Advanced-search conditions as one SQL condition within the church and the viewer's scope. */
export function advancedWhere(churchId: string, conditions: Condition[], scope: Scope): SQL {
  return peopleScope(churchId, scope, searchCondition(conditions));
}

/** Runs advanced-search conditions as one SQL query within the church and the viewer's scope. */
export function advancedSearch(db: Db, churchId: string, conditions: Condition[], scope: Scope): Promise<PersonRecord[]> {
  return peopleWhere(db, advancedWhere(churchId, conditions, scope));
}

/**
 * Natural-language member search: the chat model when configured (any failure or an empty answer falls
 * back), else the parser. Group names become the ids of the church's matching groups so the answer can be
 * replayed through advanced search; text that nothing understood finds no one rather than everyone.
 */
export async function memberQuery(db: Db, churchId: string, text: string, scope: Scope, ai?: ChatCompletionsOptions, now = new Date()): Promise<MemberQueryResult> {
  let source: MemberQueryResult['source'] = 'parser';
  let conditions: Condition[] | undefined;
  let recognized = true;
  if (ai) {
    try {
      const asked = await conditionsFromChat(ai, text, now);
      searchCondition(asked);
      if (asked.length) [conditions, source] = [asked, 'ai'];
    } catch {
      // fall back to the parser below
    }
  }
  if (!conditions) ({ conditions, recognized } = parseMemberQuery(text, now));
  conditions = await resolveGroupNames(db, churchId, conditions);
  if (!recognized) return { conditions, people: [], source };
  return { conditions, people: await advancedSearch(db, churchId, conditions, scope), source };
}

async function resolveGroupNames(db: Db, churchId: string, conditions: Condition[]): Promise<Condition[]> {
  const out: Condition[] = [];
  for (const c of conditions) {
    if (c.field !== 'groupName' || typeof c.value !== 'string') {
      out.push(c);
      continue;
    }
    const v = likeEscape(c.value.trim());
    const pattern = c.operator === 'equals' ? v : c.operator === 'startsWith' ? `${v}%` : `%${v}%`;
    const found = await db
      .select({ id: groups.id })
      .from(groups)
      .where(and(eq(groups.churchId, churchId), eq(groups.removed, false), ilike(groups.name, pattern)));
    if (!found.length) out.push(c);
    else out.push(found.length === 1 ? { field: 'groupId', operator: 'equals', value: found[0]!.id } : { field: 'groupId', operator: 'in', value: found.map((g) => g.id) });
  }
  return out;
}
