import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import type { ZodTypeProvider } from '@church/common';
import type { Config } from '../config';
import { Condition } from '../domain/advanced-search';
import { memberQuery } from '../domain/member-search';
import { PersonList, toPerson, viewerOf } from '../domain/person';

const Body = z.object({
  text: z.string().trim().min(1, 'text is required').max(500),
  subDomain: z.string().max(100).optional(),
  siteUrl: z.string().max(500).optional(),
});
const Answer = z.object({ conditions: z.array(Condition), people: PersonList, source: z.enum(['parser', 'ai']) });

/** Natural-language member search: the text becomes advanced-search conditions, run within the caller's view. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const config = app.deps.config as Partial<Config>;
  const ai =
    config.OPENAI_API_URL && config.OPENAI_API_KEY ? { url: config.OPENAI_API_URL, apiKey: config.OPENAI_API_KEY, model: config.OPENAI_MODEL ?? 'gpt-4o-mini' } : undefined;

  app.post('/membership/query/members', { config: { access: anyUser }, schema: { body: Body, response: { 200: Answer } } }, async (req) => {
    const result = await memberQuery(app.db, req.auth.churchId, req.body.text, viewerOf(req.auth), ai);
    return { ...result, people: result.people.map(toPerson) };
  });
}
