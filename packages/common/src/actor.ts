import type { FastifyRequest } from 'fastify';
import type { Claims } from '@church/auth';
import { unauthorized } from './errors';

/** What domain code may log through: the request's logger in a route, the worker's in a job. */
export interface ActorLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * Who a piece of work acts for, built once where it enters the module (a route from its request, a job from its
 * payload) and passed to domain code with the deps it uses: domain code takes an Actor and never a Fastify
 * request or instance, so a job calls it exactly as a route does and a test calls it without a server.
 *
 * A signed-in caller's Actor is its verified claims (church, user, person, permissions, leader groups), so the
 * permission helpers of `@church/auth` take it as they take the claims; `requestId` ties its log lines and
 * audit rows to the request.
 */
export interface Actor extends Claims {
  requestId: string;
  /** the caller's address as the gateway saw it ('' for work not started by a request) */
  ip: string;
  log: ActorLog;
}

/** The caller of a route that declares a permission, a member or a signed-in user (its token was verified). */
export function actorOf(req: FastifyRequest): Actor {
  if (!req.auth) throw unauthorized();
  return { ...req.auth, requestId: String(req.id), ip: req.ip, log: req.log };
}

/** The caller of a public route: its Actor when a valid token came with the request, otherwise null. */
export function optionalActorOf(req: FastifyRequest): Actor | null {
  return req.auth ? actorOf(req) : null;
}

/**
 * The module itself acting in a church (a job, a webhook, a sweep): no user, no person, no permission. Domain code
 * that checks permissions refuses it; code that records who acted records the job.
 */
export function systemActor(churchId: string, requestId: string, log: ActorLog): Actor {
  return { id: '', email: '', churchId, personId: null, permissions: {}, leaderGroupIds: [], requestId, ip: '', log };
}
