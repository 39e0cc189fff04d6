import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Webhook as Signer } from 'standardwebhooks';
import { CHANGE_EVENTS, badRequest, checkPublicUrl, fetchOutbound, jobContract, notFound, recordEffect, reportChanges, type Actor, type ChangeRecord, type DbOrTx, type JobContext } from '@church/common';
import type { MembershipDeps } from '../deps';
import { countFailure, findDelivery, findWebhook, insertDeliveries, insertWebhook, recordAttempt, subscribers, updateWebhook, type DeliveryRow, type WebhookRow } from '../repos/webhooks';
import { stableUuid } from './secrets';

/** The events a church may subscribe to, grouped as B1Admin lists them (`CHANGE_EVENTS` of @church/common). */
export const EVENT_GROUPS: Record<string, readonly string[]> = CHANGE_EVENTS;
export const ALL_EVENTS = new Set<string>(Object.values(CHANGE_EVENTS).flat());

/** How a delivery's body is written: the Standard Webhooks envelope, or a chat message Slack or Discord shows. */
export const CONNECTOR_TYPES = ['standard', 'slack', 'discord'] as const;
export type ConnectorType = (typeof CONNECTOR_TYPES)[number];

/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * One delivery attempt per job run; a failed attempt throws so the queue tries again with exponential backoff
 * (30 s, 1 min, 2 min … about four hours over 10 attempts, each wait capped by the queue's longest), and the
 * last failure leaves the delivery `exhausted`. Receivers should dedupe on `webhook-id`.
 */
export const webhookDelivery = jobContract({
  name: 'membership.webhookDelivery',
  schema: z.object({ churchId: z.uuid(), deliveryId: z.uuid() }),
  attempts: 10,
  backoffMs: 30_000,
});

/** The message a receiver gets: Standard Webhooks' `type`/`timestamp`/`data`, and the same as `event`/`occurredAt`. */
export function envelope(event: string, churchId: string, at: string, data: unknown) {
  return { type: event, timestamp: at, event, churchId, occurredAt: at, data: data ?? null };
}

/** The body sent to a receiver of this connector type. */
export function bodyFor(connector: string, env: ReturnType<typeof envelope>): string {
  if (connector === 'slack') return JSON.stringify({ text: describe(env) });
  if (connector === 'discord') return JSON.stringify({ content: describe(env) });
  return JSON.stringify(env);
}

const nameOf = (d: Record<string, unknown>) => {
  const name = d.name as { display?: string; first?: string; last?: string } | string | undefined;
  if (typeof name === 'string') return name;
  return name?.display || [name?.first, name?.last].filter(Boolean).join(' ') || (d.displayName as string) || '';
};

/** One line a person reads in a chat channel. */
function describe(env: ReturnType<typeof envelope>): string {
  const d = (env.data && typeof env.data === 'object' ? env.data : {}) as Record<string, unknown>;
  const [kind, ...rest] = env.event.split('.');
  const verb = rest.join(' ');
  const named = nameOf(d);
  return `${kind}${verb ? ` ${verb}` : ''}${named ? `: ${named}` : ''}`;
}

/** A sample record for `POST /webhooks/:id/test`, shaped like the event's real data. */
export function sampleData(event: string): Record<string, unknown> {
  const kind = event.split('.')[0];
  const id = randomUUID();
  if (kind === 'person') return { id, name: { first: 'Sample', last: 'Person', display: 'Sample Person' }, contactInfo: { email: 'sample@example.org' }, membershipStatus: 'Guest' };
  if (kind === 'group') return event.startsWith('group.member') ? { id, groupId: randomUUID(), groupName: 'Sample Group', personId: randomUUID(), personName: 'Sample Person' } : { id, name: 'Sample Group' };
  if (kind === 'household') return { id, name: 'Sample Household' };
  if (kind === 'donation') return { id, amount: 25, currency: 'USD', personName: 'Sample Person' };
  if (kind === 'form') return { id, formId: randomUUID(), formName: 'Sample Form' };
  return { id, sample: true };
}

/**
 * A receiving address as a church saves it, by the rule its deliveries apply (`checkPublicUrl`: http(s) with no
 * credentials, and a public host however it is spelled or resolves); `fetchOutbound` checks it again at every
 * delivery, connecting only to the address it checked.
 */
export async function checkReceiverUrl(url: string, allowPrivate: boolean): Promise<string> {
  return (await checkPublicUrl(url, { param: 'url', allowPrivate })).toString();
}

/**
 * The deliveries the changes of one `membership.changes` job make: for each change that is an event, one per
 * active webhook of its church subscribed to it. Ids are derived from the change and the webhook, so a retried job
 * writes (and enqueues) nothing twice. Runs in the job's transaction.
 */
export async function fanOut(deps: MembershipDeps, tx: DbOrTx, records: ChangeRecord[]): Promise<number> {
  const evented = records.map((r, i) => ({ r, i })).filter(({ r }) => r.event && ALL_EVENTS.has(r.event));
  if (!evented.length) return 0;
  const hooks = await subscribers(tx, [...new Set(evented.map(({ r }) => r.churchId))], [...new Set(evented.map(({ r }) => r.event!))]);
  if (!hooks.length) return 0;
  const rows = [];
  for (const { r, i } of evented) {
    for (const hook of hooks) {
      if (hook.churchId !== r.churchId || !hook.events.includes(r.event!)) continue;
      const id = stableUuid(`${hook.id}|${r.at}|${i}|${r.entityType}|${r.entityId}|${r.event}`);
      rows.push({ id, churchId: r.churchId, webhookId: hook.id, messageId: `msg_${id.replace(/-/g, '')}`, event: r.event!, payload: bodyFor(hook.connectorType, envelope(r.event!, r.churchId, r.at, r.data)) });
    }
  }
  const created = await insertDeliveries(tx, rows);
  for (const id of created) await deps.queue.enqueue(webhookDelivery, { churchId: rows.find((row) => row.id === id)!.churchId, deliveryId: id }, { tx, jobId: `webhook:${id}` });
  return created.length;
}

const EXCERPT = 2000;

/** The outcome of one attempt, before it is recorded. */
interface Attempt {
  status: number | null;
  body: string | null;
  error: string | null;
  durationMs: number;
}

/** Sends a delivery once, signed with the webhook's secret (Standard Webhooks headers). */
async function attemptOnce(deps: MembershipDeps, hook: WebhookRow, delivery: DeliveryRow): Promise<Attempt> {
  const started = performance.now();
  const signer = new Signer(deps.secrets.decrypt(hook.secret));
  const now = new Date();
  try {
    const answer = await fetchOutbound(hook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'ChurchWebhooks/1.0',
        'webhook-id': delivery.messageId,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signer.sign(delivery.messageId, now, delivery.payload),
      },
      body: delivery.payload,
      timeoutMs: 15_000,
      maxBytes: 256 * 1024,
      maxRedirects: 0,
      allowAddress: deps.config.OUTBOUND_ALLOW_PRIVATE ? () => true : undefined,
    });
    return { status: answer.status, body: answer.body.slice(0, EXCERPT), error: null, durationMs: Math.round(performance.now() - started) };
  } catch (err) {
    const msg = (err as { errors?: Array<{ msg?: string }> }).errors?.[0]?.msg ?? (err as Error).message;
    return { status: null, body: null, error: String(msg).slice(0, EXCERPT), durationMs: Math.round(performance.now() - started) };
  }
}

/**
 * The `membership.webhookDelivery` handler: one attempt, logged with its status and a body excerpt. A 2xx
 * settles the delivery; anything else throws so the queue retries, and the last attempt marks it `exhausted`.
 * A webhook deleted or switched off meanwhile ends its pending deliveries as `failed`, with no further attempt.
 */
export async function deliver(deps: MembershipDeps, data: { churchId: string; deliveryId: string }, ctx: Pick<JobContext, 'attempt'> & Partial<Pick<JobContext, 'log'>>): Promise<void> {
  const delivery = await findDelivery(deps.db, data.churchId, data.deliveryId);
  if (!delivery || delivery.status === 'succeeded' || delivery.status === 'exhausted') return;
  const hook = await findWebhook(deps.db, data.churchId, delivery.webhookId);
  const attemptId = stableUuid(`${delivery.id}|attempt|${delivery.attemptCount + 1}`);
  if (!hook?.active) {
    await recordAttempt(deps.db, delivery, { number: delivery.attemptCount + 1, status: null, body: null, error: hook ? 'The webhook is switched off' : 'The webhook was deleted', durationMs: 0, attemptId }, { status: 'failed', nextAttemptAt: null, completed: true });
    return;
  }
  const result = await attemptOnce(deps, hook, delivery);
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  const last = ctx.attempt >= (webhookDelivery.attempts ?? 1);
  const waitMs = Math.min(webhookDelivery.backoffMs! * 2 ** (ctx.attempt - 1), deps.config.WEBHOOK_RETRY_MAX_DELAY_MS);
  const record = () =>
    deps.db.transaction(async (tx) => {
      await recordAttempt(
        tx,
        delivery,
        { number: delivery.attemptCount + 1, ...result, attemptId },
        ok ? { status: 'succeeded', nextAttemptAt: null, completed: true } : last ? { status: 'exhausted', nextAttemptAt: null, completed: true } : { status: 'failed', nextAttemptAt: new Date(Date.now() + waitMs), completed: false },
      );
      if (ok || last) await countFailure(tx, hook.churchId, hook.id, !ok);
    });
  // A receiver that took the delivery must not get it again because the database was away when it answered.
  if (ok) await recordEffect(record, { what: `webhook delivery ${delivery.id}`, log: ctx.log });
  else await record();
  if (!ok && !last) throw new Error(result.status === null ? `webhook receiver unreachable: ${result.error}` : `webhook receiver answered ${result.status}`);
}

/** What the audit log keeps of a webhook (never its secret). */
export const auditedWebhook = (w: WebhookRow) => ({ name: w.name, url: w.url, events: w.events, active: w.active, connectorType: w.connectorType });

/**
 * Creates a webhook (answering its secret this once) or updates one (the secret never leaves again): a supported
 * connector, a receiving URL the church may send to, the events de-duplicated.
 */
export async function saveWebhook(
  deps: Pick<MembershipDeps, 'db' | 'module' | 'queue' | 'config' | 'secrets'>,
  actor: Actor,
  input: { id?: string; name: string; url: string; events: string[]; active?: boolean; connectorType?: string },
): Promise<{ hook: WebhookRow; secret?: string }> {
  const { churchId } = actor;
  const connectorType = input.connectorType ?? 'standard';
  if (!(CONNECTOR_TYPES as readonly string[]).includes(connectorType)) {
    throw badRequest('connectorType', `one of ${CONNECTOR_TYPES.join(', ')} (connectors that call a provider's API, such as Mailchimp, are not supported)`);
  }
  const url = await checkReceiverUrl(input.url, deps.config.OUTBOUND_ALLOW_PRIVATE);
  const values = { name: input.name, url, events: [...new Set(input.events)], active: input.active ?? true, connectorType };
  return deps.db.transaction(async (tx) => {
    if (input.id) {
      const before = await findWebhook(tx, churchId, input.id);
      if (!before) throw notFound('Webhook');
      const saved = (await updateWebhook(tx, churchId, input.id, values))!;
      await reportChanges(deps, [{ churchId, entityType: 'webhook', entityId: saved.id, action: 'updated', before: auditedWebhook(before), after: auditedWebhook(saved) }], { req: actor, tx });
      return { hook: saved };
    }
    const secret = newSecret();
    const saved = await insertWebhook(tx, { id: randomUUID(), churchId, ...values, secret: deps.secrets.encrypt(secret), createdBy: actor.id });
    await reportChanges(deps, [{ churchId, entityType: 'webhook', entityId: saved.id, action: 'created', after: auditedWebhook(saved) }], { req: actor, tx });
    return { hook: saved, secret };
  });
}

/** A new delivery of `payload` to `hook`, queued in the same transaction (a redelivery keeps the message id); its id. */
export function queueDelivery(deps: Pick<MembershipDeps, 'db' | 'queue'>, hook: WebhookRow, event: string, payload: string, messageId?: string): Promise<string> {
  return deps.db.transaction(async (tx) => {
    const id = randomUUID();
    await insertDeliveries(tx, [{ id, churchId: hook.churchId, webhookId: hook.id, messageId: messageId ?? `msg_${id.replace(/-/g, '')}`, event, payload }]);
    await deps.queue.enqueue(webhookDelivery, { churchId: hook.churchId, deliveryId: id }, { tx, jobId: `webhook:${id}` });
    return id;
  });
}

/** A sample of one of the webhook's events (the one asked for, else its first), through the same queue; the delivery's id. */
export async function sendTestEvent(deps: Pick<MembershipDeps, 'db' | 'queue'>, churchId: string, webhookId: string, asked: string | undefined): Promise<string> {
  const hook = await findWebhook(deps.db, churchId, webhookId);
  if (!hook) throw notFound('Webhook');
  if (asked && !hook.events.includes(asked)) throw badRequest('event', 'the webhook is not subscribed to this event');
  const event = asked ?? hook.events[0];
  if (!event) throw badRequest('event', 'the webhook has no events');
  const payload = bodyFor(hook.connectorType, envelope(event, churchId, new Date().toISOString(), { ...sampleData(event), test: true }));
  return queueDelivery(deps, hook, event, payload);
}
