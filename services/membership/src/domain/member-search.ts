import type { Db } from '@church/common';
import { parseCondition, type Condition } from '../lib/advanced-search';
import { likeEscape } from '../lib/people';
import { conditionsFromChat, type ChatCompletionsOptions } from '../providers/chat-completions';
import { advancedSearch } from '../repos/advanced-search';
import { groupIdsNamedLike } from '../repos/groups';
import type { PersonRecord, Scope } from '../repos/people';
import { parseMemberQuery } from './member-query';

export interface MemberQueryResult {
  conditions: Condition[];
  people: PersonRecord[];
  /** who read the text: the deterministic parser or the configured chat model */
  source: 'parser' | 'ai';
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
      asked.forEach((c, i) => parseCondition(c, i)); // conditions the search cannot run throw: the parser answers instead
      if (asked.length) [conditions, source] = [asked, 'ai'];
    } catch {
      // fall back to the parser below
    }
  }
  if (!conditions) ({ conditions, recognized } = parseMemberQuery(text, now));
  conditions = await resolveGroupNames(db, churchId, conditions);
  if (!recognized) return { conditions, people: [], source };
  return { conditions, people: await advancedSearch(db, churchId, conditions.map((c, i) => parseCondition(c, i)), scope), source };
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
    const found = await groupIdsNamedLike(db, churchId, pattern);
    if (!found.length) out.push(c);
    else out.push(found.length === 1 ? { field: 'groupId', operator: 'equals', value: found[0]! } : { field: 'groupId', operator: 'in', value: found });
  }
  return out;
}
