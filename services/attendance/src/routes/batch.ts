import type { FastifyRequest } from 'fastify';

/**
 * The `param` of a field of batch item `i`, as the validator writes it: `[2].serviceId` when the body was an
 * array, `serviceId` when it was a single object (batch routes accept both).
 */
export function itemParam(req: FastifyRequest, i: number, field: string): string {
  return req.rawBody?.trimStart().startsWith('[') ? `[${i}].${field}` : field;
}
