import OpenAI from 'openai';
import { notConfigured, providerFailed, providerMessage } from '@church/common';

/** An OpenAI-compatible chat endpoint. */
export interface ChatAi {
  /** throws the same 400 as `complete` when no key is set, so a route can check before doing costly work */
  ready(): void;
  complete(system: string, user: string): Promise<string>;
}

/** The `openai` SDK with a configurable base URL and model (the settings membership's member query reads too). */
export function openAiChat(opts: { apiKey?: string; baseUrl?: string; model?: string }): ChatAi {
  let client: OpenAI | undefined;
  const ready = () => {
    if (!opts.apiKey) throw notConfigured('The AI chat endpoint', 'OPENAI_API_KEY');
  };
  return {
    ready,
    async complete(system, user) {
      ready();
      client ??= new OpenAI({ apiKey: opts.apiKey, baseURL: opts.baseUrl, timeout: 60_000, maxRetries: 1 });
      try {
        const res = await client.chat.completions.create({
          model: opts.model ?? 'gpt-4o-mini',
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: user },
          ],
        });
        return res.choices[0]?.message?.content ?? '';
      } catch (err) {
        throw providerFailed('The AI chat endpoint', providerMessage(err));
      }
    },
  };
}
