import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import { providerFailed, providerMessage, type InternalClient, type ModuleName } from '@church/common';

/**
 * A signed call to another module whose answer a route needs. A failure (unreachable, timeout, a 5xx or any
 * other non-2xx answer, an answer of the wrong shape) is a 502 in the error shape, never an empty answer.
 */
export async function askModule<T extends z.ZodType>(
  internal: InternalClient,
  log: FastifyBaseLogger,
  module: ModuleName,
  path: string,
  body: unknown,
  answer: T,
): Promise<z.output<T>> {
  let data: unknown;
  try {
    data = await internal.post(module, path, body);
  } catch (err) {
    log.warn({ err, module, path }, 'downstream call failed');
    throw providerFailed(`The ${module} service`, providerMessage(err));
  }
  const parsed = answer.safeParse(data);
  if (!parsed.success) {
    log.warn({ module, path, issues: parsed.error.issues.slice(0, 3) }, 'downstream answer of the wrong shape');
    throw providerFailed(`The ${module} service`, 'unexpected answer');
  }
  return parsed.data;
}
