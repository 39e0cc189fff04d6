import type { FastifyPluginAsync } from 'fastify';

/** The doing module's route files, one line per spec table. */
export const routes: FastifyPluginAsync[] = [];
