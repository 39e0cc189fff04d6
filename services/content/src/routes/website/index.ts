import type { FastifyPluginAsync } from 'fastify';

/** The website half's route files, one per spec table. */
export const websiteRoutes: FastifyPluginAsync[] = [];
