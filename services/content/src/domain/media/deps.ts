import type { FastifyInstance } from 'fastify';
import { content } from '../../app';

/** The content module's typed dependencies (config and providers), read at request time. */
export const mediaDeps = (app: FastifyInstance) => content.deps(app);
