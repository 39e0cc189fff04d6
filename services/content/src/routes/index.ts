import type { FastifyPluginAsync } from 'fastify';
import { websiteRoutes } from './website';
import { mediaRoutes } from './media';
import gdpr from './gdpr';

/** The content module's route files: the website half and the media half. */
export const routes: FastifyPluginAsync[] = [...websiteRoutes, ...mediaRoutes];
// Internal routes of the whole module (both halves' records).
routes.push(gdpr);
