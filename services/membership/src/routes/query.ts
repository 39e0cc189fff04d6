import type { FastifyInstance } from 'fastify';
import { anyUser, requires } from '@church/auth';
import { unauthorized, type ZodTypeProvider } from '@church/common';
import { membershipDeps } from '../deps';
import { memberQuery } from '../domain/member-search';
import { toPerson, viewerOf } from '../domain/people/person';
import { Body, Answer } from '../schemas/query';

/** What `POST /people/advancedSearch` requires; this route is a front end to it, so its callers need it too. */
const viewPeople = requires('People.View or Member');

/** Natural-language member search: the text becomes advanced-search conditions, run within the caller's view. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { config } = membershipDeps(app);
  const ai = config.OPENAI_API_URL && config.OPENAI_API_KEY ? { url: config.OPENAI_API_URL, apiKey: config.OPENAI_API_KEY, model: config.OPENAI_MODEL } : undefined;

  // The spec lists this route with `—`, so it stays open to any user at the route level; the people it
  // answers are advancedSearch's, so a caller who could not call that gets nothing (not even the model's reading).
  app.post('/membership/query/members', { config: { access: anyUser }, schema: { body: Body, response: { 200: Answer } } }, async (req) => {
    if (!(await viewPeople.check(req, req.auth, app.deps.api))) throw unauthorized(`Missing permission: ${viewPeople.text}`);
    const result = await memberQuery(app.db, req.auth.churchId, req.body.text, viewerOf(req.auth), ai);
    return { ...result, people: result.people.map(toPerson) };
  });
}
