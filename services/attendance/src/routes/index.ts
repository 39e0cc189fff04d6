import type { FastifyPluginAsync } from 'fastify';

/** The attendance module's route files, one line per spec table. */
export const routes: FastifyPluginAsync[] = [];
