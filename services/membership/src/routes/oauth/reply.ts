import type { FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../../domain/oauth/tokens';

// What the OAuth endpoints share that is HTTP itself: the RFC 6749 error reply and the client's credentials.

/**
 * Runs an OAuth endpoint: validation failures (attached, not thrown) and OAuthErrors answer in the OAuth
 * error shape with `Cache-Control: no-store` (RFC 6749 §5.1).
 */
export async function oauthReply<T>(req: FastifyRequest, reply: FastifyReply, run: () => Promise<T>): Promise<T | FastifyReply> {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  try {
    if (req.validationError) {
      const issue = (req.validationError as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues?.[0];
      throw new OAuthError('invalid_request', issue ? `${issue.path.map(String).join('.') || 'body'}: ${issue.message}` : 'Malformed request');
    }
    return await run();
  } catch (err) {
    if (err instanceof OAuthError) return reply.code(err.statusCode).send({ error: err.error, error_description: err.description });
    throw err;
  }
}

/** `client_id`/`client_secret` from HTTP Basic (client_secret_basic) or the body (client_secret_post). */
export function clientCredentials(req: FastifyRequest, body: { client_id?: string; client_secret?: string }) {
  const header = req.headers.authorization;
  if (header && /^basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const at = decoded.indexOf(':');
    if (at > 0) return { clientId: safeDecode(decoded.slice(0, at)), secret: safeDecode(decoded.slice(at + 1)) ?? '' };
  }
  return { clientId: body.client_id, secret: body.client_secret ?? null };
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
