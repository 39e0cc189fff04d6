import type { FastifyPluginAsync } from 'fastify';

/** The messaging module's route files, one line per spec table. */
export const routes: FastifyPluginAsync[] = [];
