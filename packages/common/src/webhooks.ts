import { randomUUID } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import { z } from 'zod';
import type { Db, Tx } from './db';
import type { JobContract } from './queue';
import { prepared } from './rows';
import { webhookEvents } from './tables';

/** What a provider's verified webhook says, before any effect. */
export interface VerifiedEvent {
  churchId: string;
  /** the provider's own event id: the de-duplication key with church and provider */
  eventId: string;
  type: string;
  /** the parsed event, kept for the job and the event log */
  payload: unknown;
}

/** The payload of every webhook effect job: the recorded event's row. */
export const WebhookJob = z.object({ webhookEventId: z.uuid() });

export interface WebhookIntakeOptions {
  /** the route, for example `/giving/donate/webhook/:provider` */
  path: string;
  /** zod schemas of params, query string and answers, and whether the docs hide the route (the body is raw bytes, never parsed before `verify`) */
  schema?: Pick<FastifySchema, 'params' | 'querystring' | 'response' | 'hide'> & { summary?: string; description?: string; tags?: string[] };
  /** the provider's name for this request (`stripe`, `paypal`, `twilio`) */
  provider(req: FastifyRequest): string;
  /**
   * Checks the provider's signature over the raw body byte for byte, then parses it. Throws an HttpError (400)
   * when the signature is missing or wrong: nothing is recorded then. Answer `null` for a verified event the
   * module ignores (answered 200, not recorded).
   */
  verify(req: FastifyRequest, rawBody: Buffer): Promise<VerifiedEvent | null> | VerifiedEvent | null;
  /** the module's job that applies the event's effect (`processWebhookEvent` in its handler) */
  job: JobContract<typeof WebhookJob>;
  /**
   * The effect applied within the delivery, for the events a module can settle in one step (giving: a new
   * payment, one statement). Called once per recorded event, by the delivery that recorded it; it applies the
   * effect and marks the event processed together, answering true, or answers false having changed nothing.
   * False or a throw hands the event to `job` as without it. Saves the common case a job's round trips through
   * the queue (issue 20: webhook bursts are hundreds of events a second).
   */
  settle?: (event: RecordedWebhookEvent) => Promise<boolean>;
  /** what the provider is answered (default `{received: true}`); some providers want a body of their own */
  answer?: (event: { duplicate: boolean }) => { type?: string; body: unknown };
}

/**
 * Inbound provider webhooks (public routes): the raw body is kept byte for byte and verified first; each
 * event is recorded once per (church, provider, event id), also under 100 concurrent deliveries of one event
 * (a unique index decides); its effect is applied within the delivery where the module can (`settle`), else
 * by a job with a deterministic id, so a crash between recording and effect is redone by the provider's
 * redelivery or the queue's retry, never doubled.
 */
export function webhookIntake(root: FastifyInstance, opts: WebhookIntakeOptions): void {
  void root.register(async (app) => {
    // Only this scope reads bodies as bytes: the signature covers the exact bytes the provider sent.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    app.post(opts.path, { config: { access: 'public' }, schema: opts.schema as FastifySchema }, async (req, reply) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const event = await opts.verify(req, raw);
      const answer = (duplicate: boolean) => {
        const out = opts.answer?.({ duplicate }) ?? { body: { received: true, duplicate } };
        if (out.type) reply.type(out.type);
        return reply.code(200).send(out.body);
      };
      if (!event) return answer(false);
      const provider = opts.provider(req);
      const { id, duplicate, receivedAt } = await recordWebhookEvent(app.db, provider, event);
      // the delivery that recorded the event settles it when the module can; the rest goes to the job
      const settledHere = !!id && !!receivedAt && !!opts.settle && (await settled(req, opts.settle, { ...event, id, provider, receivedAt }));
      if (id && !settledHere) await app.deps.queue.enqueue(opts.job, { webhookEventId: id }, { jobId: `webhook-${id}` });
      return answer(duplicate);
    });
  });
}

/** A webhook event as recorded, before its effect (the fields of its row that `settle` may use). */
export interface RecordedWebhookEvent extends VerifiedEvent {
  id: string;
  provider: string;
  receivedAt: Date;
}

/** Whether `settle` applied the event; a failure is logged and leaves the event to its job. */
async function settled(req: FastifyRequest, settle: (event: RecordedWebhookEvent) => Promise<boolean>, event: RecordedWebhookEvent): Promise<boolean> {
  try {
    return await settle(event);
  } catch (err) {
    req.log.warn({ err, webhookEventId: event.id }, 'webhook effect left to its job');
    return false;
  }
}

/**
 * Records the event once. Answers the row to hand to the job (`id`: a new row, or a recorded one whose effect
 * has not completed, which a redelivery hands over again under the same job id), whether it was seen before, and
 * when it was received (a new row only).
 */
export async function recordWebhookEvent(db: Db, provider: string, event: VerifiedEvent): Promise<{ id: string | null; duplicate: boolean; receivedAt?: Date }> {
  const key = { churchId: event.churchId, provider, eventId: event.eventId };
  const [inserted] = await insertEvent(db, { ...key, id: randomUUID(), type: event.type, payload: JSON.stringify(event.payload ?? {}) });
  if (inserted) return { id: inserted.id, duplicate: false, receivedAt: new Date(inserted.received_at) };
  const [existing] = await recordedEvent(db, key);
  return { id: existing && !existing.processed ? existing.id : null, duplicate: true };
}

// Rendered once: webhook bursts are hundreds of events a second, and building each statement anew cost the
// intake about a tenth of its CPU (issue 20).
const param = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;
const eventKey = sql`church_id = ${param('churchId', 'uuid')} and provider = ${param('provider', 'text')} and event_id = ${param('eventId', 'text')}`;
const insertEvent = prepared<{ id: string; received_at: string | Date }>(sql`
  insert into ${webhookEvents} (id, church_id, provider, event_id, type, payload)
  values (${param('id', 'uuid')}, ${param('churchId', 'uuid')}, ${param('provider', 'text')}, ${param('eventId', 'text')}, ${param('type', 'text')}, ${param('payload', 'jsonb')})
  on conflict do nothing returning id, received_at`);
const recordedEvent = prepared<{ id: string; processed: boolean }>(sql`select id, processed_at is not null as processed from ${webhookEvents} where ${eventKey}`);

export type WebhookEventRow = typeof webhookEvents.$inferSelect;

/**
 * The event a webhook job is about while its effect is still to apply, read without a lock: what a job needs to
 * ask another module before `processWebhookEvent` opens its transaction (no call is made while one is open).
 */
export async function pendingWebhookEvent(db: Db, webhookEventId: string): Promise<WebhookEventRow | undefined> {
  const [event] = await db.select().from(webhookEvents).where(and(eq(webhookEvents.id, webhookEventId), isNull(webhookEvents.processedAt)));
  return event;
}

/**
 * A webhook job's body: in one transaction, locks the event, applies `effect` unless it was applied before, and
 * marks it processed with the effect's outcome. A retried job (crash, redelivery) finds it processed and stops.
 */
export async function processWebhookEvent(db: Db, webhookEventId: string, effect: (event: WebhookEventRow, tx: Tx) => Promise<string>): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [event] = await tx.select().from(webhookEvents).where(and(eq(webhookEvents.id, webhookEventId), isNull(webhookEvents.processedAt))).for('update');
    if (!event) return null;
    const outcome = await effect(event, tx);
    await tx.update(webhookEvents).set({ processedAt: new Date(), outcome }).where(eq(webhookEvents.id, webhookEventId));
    return outcome;
  });
}
