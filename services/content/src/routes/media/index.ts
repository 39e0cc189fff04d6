import type { FastifyPluginAsync } from 'fastify';

/** The media half's route files, one per spec table. */
export const mediaRoutes: FastifyPluginAsync[] = [];
