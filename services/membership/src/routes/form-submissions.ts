import type { FastifyInstance } from 'fastify';

// Routes of this spec table arrive here.
export default async function routes(_app: FastifyInstance): Promise<void> {}
