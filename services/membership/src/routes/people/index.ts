import type { FastifyInstance } from 'fastify';
import read from './read';
import search from './search';
import write from './write';
import related from './related';
import publicRoutes from './public';

/** `/membership/people`: reads, searches, saves, the directory and the public and internal routes. */
export default async function routes(app: FastifyInstance): Promise<void> {
  for (const plugin of [read, search, write, related, publicRoutes]) await app.register(plugin);
}
