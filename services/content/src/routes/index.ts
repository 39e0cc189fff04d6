import type { FastifyPluginAsync } from 'fastify';

/** The content module's route files, one line per spec table. */
export const routes: FastifyPluginAsync[] = [];
