import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '@church/common';
import { fakeInternal, personFacts, signedCall } from '@church/common/testing';
import { ok } from './helpers';

/**
 * Membership and giving as registrations see them: people of churches (`addPerson`), and giving's registration
 * charge, which keeps one payment per idempotency key as giving does. `giving.next` makes the next new charge
 * `declined` (giving's 400), `lost` (charged, but the answer never arrives: a 5xx) or `3ds` (requires_action); `down` makes every charge fail unanswered (giving unreachable, nothing charged) until
 * it is set back.
 */
/** group id → the church it is of (membership's groups, as `registrableEvent` makes them) */
const groups = new Map<string, string>();

export function fakeModules() {
  const people = new Map<string, { churchId: string; firstName: string; lastName: string; email: string; householdId: string }>();
  const byKey = new Map<string, Record<string, unknown>>();
  const giving = { next: 'succeeded' as 'succeeded' | 'declined' | 'lost' | '3ds', down: false };
  const personOf = (churchId: string, ids: string[]) => ids.flatMap((id) => (people.get(id)?.churchId === churchId ? [{ id, ...people.get(id)! }] : []));
  const internal = fakeInternal({
    'POST /membership/internal/groups/list': (b: { churchId: string }) => [...groups].filter(([, c]) => c === b.churchId).map(([id]) => ({ id, name: 'Campers' })),
    'POST /membership/internal/people/facts': (b: { churchId: string; ids: string[] }) =>
      personOf(b.churchId, b.ids).map((p) =>
        personFacts({ id: p.id, firstName: p.firstName, lastName: p.lastName, displayName: `${p.firstName} ${p.lastName}`, email: p.email, householdId: p.householdId }),
      ),
    // the shared reference check: the church's people and groups among the ids (forms: any)
    'POST /membership/internal/owned': (b: { churchId: string; kind: string; ids: string[] }) => ({
      ids: b.kind === 'people' ? personOf(b.churchId, b.ids).map((p) => p.id) : b.kind === 'groups' ? b.ids.filter((id) => groups.get(id) === b.churchId) : b.ids,
    }),
    'POST /membership/internal/people/contacts': (b: { churchId: string; ids: string[] }) =>
      personOf(b.churchId, b.ids).map((p) => ({ id: p.id, firstName: p.firstName, lastName: p.lastName, displayName: null, email: p.email, mobilePhone: null, optedOut: false, leader: false })),
    'POST /giving/internal/registrations/charge': (b: { idempotencyKey: string; amount: string; currency?: string }) => {
      if (giving.down) throw new Error('connect ECONNREFUSED giving');
      const known = byKey.get(b.idempotencyKey);
      if (known) return known;
      const mode = giving.next;
      giving.next = 'succeeded';
      if (mode === 'declined') throw new HttpError(400, [{ msg: 'Your card was declined.' }]);
      const answer = {
        status: mode === '3ds' ? 'requires_action' : 'succeeded',
        paymentId: randomUUID(),
        provider: 'stripe',
        transactionId: `pi_${byKey.size + 1}`,
        amount: b.amount,
        currency: b.currency ?? 'usd',
        clientSecret: mode === '3ds' ? 'pi_secret_3ds' : null,
      };
      byKey.set(b.idempotencyKey, answer);
      if (mode === 'lost') throw new HttpError(500, [{ msg: 'giving crashed after charging' }]);
      return answer;
    },
  });
  const charges = () => internal.calls.filter((c) => c.path === '/giving/internal/registrations/charge').map((c) => c.body as Record<string, string>);
  const addPerson = (churchId: string, firstName = 'Ann') => {
    const id = randomUUID();
    people.set(id, { churchId, firstName, lastName: 'Lee', email: `${firstName.toLowerCase()}@example.test`, householdId: randomUUID() });
    return id;
  };
  return { internal, giving, addPerson, charges, distinctCharges: () => byKey.size };
}

/** An event open for registration, made by the church's editor through the events route. */
export async function registrableEvent(app: FastifyInstance, editor: string, settings: Record<string, unknown> = {}) {
  const groupId = randomUUID();
  groups.set(groupId, (JSON.parse(Buffer.from(editor.split('.')[1]!, 'base64url').toString()) as { churchId: string }).churchId);
  const start = new Date(Date.now() + 14 * 86_400_000).toISOString();
  const end = new Date(Date.now() + 14 * 86_400_000 + 7_200_000).toISOString();
  const [event] = await ok(app, 'POST', '/content/events', { token: editor, body: [{ groupId, title: 'Family Camp', start, end, registrationEnabled: true, ...settings }] });
  return event as { id: string; churchId: string; groupId: string };
}

/** A call signed as another module's internal client signs it. */
export const signed = (app: FastifyInstance, url: string, body: unknown) => signedCall(app, url, body);
