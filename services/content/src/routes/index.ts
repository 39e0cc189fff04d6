import type { FastifyPluginAsync } from 'fastify';
import { websiteRoutes } from './website';
import { mediaRoutes } from './media';

/** The content module's route files: the website half and the media half. */
export const routes: FastifyPluginAsync[] = [...websiteRoutes, ...mediaRoutes];
