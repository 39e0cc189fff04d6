import { z } from 'zod';
import { ConditionList, FIELD_NAMES, OPERATORS, type Condition } from '../lib/advanced-search';

export interface ChatCompletionsOptions {
  /** API base, e.g. `https://api.openai.com/v1`; `/chat/completions` is appended */
  url: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
}

const Reply = z.object({ choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1) });

/**
 * Asks an OpenAI-compatible chat-completions endpoint to turn a member search into advanced-search
 * conditions. Throws on any failure (network, timeout, a reply that is not valid conditions) so the
 * caller falls back to the deterministic parser.
 */
export async function conditionsFromChat(opts: ChatCompletionsOptions, text: string, now: Date): Promise<Condition[]> {
  const system = [
    'You turn a church staff member’s request for a list of people into search conditions.',
    'Answer only JSON: {"conditions":[{"field":...,"operator":...,"value":...}]}; all conditions must hold.',
    `Fields: ${FIELD_NAMES.join(', ')}. Operators: ${OPERATORS.join(', ')}.`,
    'age, birthMonth (1-12), anniversaryMonth are numbers; birthDate, anniversary, createdAt are YYYY-MM-DD dates;',
    'between takes [from, to]; in takes a list; gender is Male or Female; membershipStatus is one of',
    'Visitor, Regular Attendee, Member, Staff, Guest; maritalStatus is Single, Married, Widowed or Divorced;',
    `groupName matches a group by name (use contains). Today is ${now.toISOString().slice(0, 10)}.`,
  ].join(' ');
  const res = await fetch(`${opts.url.replace(/\/+$/, '')}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${opts.apiKey}` },
    body: JSON.stringify({
      model: opts.model,
      temperature: 0,
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: text },
      ],
    }),
    signal: AbortSignal.timeout(opts.timeoutMs ?? 8000),
  });
  if (!res.ok) throw new Error(`chat completions answered ${res.status}`);
  const reply = Reply.parse(await res.json());
  return ConditionList.parse(JSON.parse(reply.choices[0]!.message.content));
}
