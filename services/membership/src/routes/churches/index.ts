import type { FastifyInstance } from 'fastify';
import publicRoutes from './public';
import own from './own';
import admin from './admin';

/** Churches (`/membership/churches`): public lookups, the caller's churches, server-admin tools. */
export default async function routes(app: FastifyInstance): Promise<void> {
  await app.register(publicRoutes);
  await app.register(own);
  await app.register(admin);
}
