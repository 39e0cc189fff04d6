import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '@church/common';
import { signedCall, type InternalCall } from '@church/common/testing';
import { ok } from '../../helpers';
import type { FakeMembership, FakeRoutes } from '../../setup';

/**
 * Giving as registrations see it: its registration charge, which keeps one payment per idempotency key as giving
 * does. `state.next` makes the next new charge `declined` (giving's 400), `lost` (charged, but the answer never
 * arrives: a 5xx) or `3ds` (requires_action); `state.down` makes every charge fail unanswered (giving
 * unreachable, nothing charged) until it is set back. `routes` go to `useContent({ routes })`.
 */
export function fakeGiving() {
  const byKey = new Map<string, Record<string, unknown>>();
  const state = { next: 'succeeded' as 'succeeded' | 'declined' | 'lost' | '3ds', down: false };
  const routes: FakeRoutes = {
    'POST /giving/internal/registrations/charge': (b: { idempotencyKey: string; amount: string; currency?: string }) => {
      if (state.down) throw new Error('connect ECONNREFUSED giving');
      const known = byKey.get(b.idempotencyKey);
      if (known) return known;
      const mode = state.next;
      state.next = 'succeeded';
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
  };
  /** the charges content asked giving for, in order (of the calls `internal` recorded) */
  const charges = (calls: InternalCall[]) => calls.filter((c) => c.path === '/giving/internal/registrations/charge').map((c) => c.body as Record<string, string>);
  return { routes, state, charges, distinctCharges: () => byKey.size };
}

/** An event open for registration of a group of the editor's church, made by the editor through the events route. */
export async function registrableEvent(t: { app: FastifyInstance; membership: FakeMembership }, editor: string, settings: Record<string, unknown> = {}) {
  const groupId = t.membership.group((JSON.parse(Buffer.from(editor.split('.')[1]!, 'base64url').toString()) as { churchId: string }).churchId);
  const start = new Date(Date.now() + 14 * 86_400_000).toISOString();
  const end = new Date(Date.now() + 14 * 86_400_000 + 7_200_000).toISOString();
  const [event] = await ok(t.app, 'POST', '/content/events', { token: editor, body: [{ groupId, title: 'Family Camp', start, end, registrationEnabled: true, ...settings }] });
  return event as { id: string; churchId: string; groupId: string };
}

/** A call signed as another module's internal client signs it. */
export const signed = (app: FastifyInstance, url: string, body: unknown) => signedCall(app, url, body);
