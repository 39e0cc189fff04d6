import { randomUUID } from 'node:crypto';
import { notFound, reportChanges, type Actor } from '@church/common';
import type { MembershipDeps } from '../../deps';
import { completeRelaySession, insertRelaySession, liveRelaySession, revokeGrant, takeRelayCode } from '../../repos/oauth';
import { clock, secondsFromNow } from '../clock';
import { grantKey } from './tokens';
import { announce, revokeTokens } from '../revocations';
import { randomCode } from '../secrets';

/**
 * Connected apps (the caller's OAuth grants in the church) and relay sessions, through which an app that cannot
 * receive a redirect itself (B1Admin's pop-up sign-ins to content and storage providers, a TV) gets an outside
 * provider's authorization code.
 */

/** How long a relay session waits for the provider (the apps poll every few seconds until then). */
export const RELAY_SECONDS = 900;

/**
 * Revokes one of the caller's connections: its refresh token ends and, through the grant's revocation stamp, the
 * access tokens the app already holds, at once on every service.
 */
export async function disconnectApp(deps: Pick<MembershipDeps, 'db' | 'module' | 'queue' | 'revocations'>, actor: Actor, id: string): Promise<void> {
  const { churchId, id: userId } = actor;
  const stamps = await deps.db.transaction(async (tx) => {
    const grant = await revokeGrant(tx, userId, churchId, id, clock.now());
    if (!grant) throw notFound('Connection');
    await reportChanges(deps, [{ churchId, entityType: 'oauthConnection', entityId: grant.id, action: 'revoked', before: { clientId: grant.clientId, scopes: grant.scopes } }], { req: actor, tx });
    return revokeTokens(tx, [{ userId: grantKey({ clientId: grant.clientId, userId, churchId }) }]);
  });
  await announce(deps, stamps);
}

/** Opens a relay session for the caller; its code is 8 readable characters (a TV shows it), the provider returns to our callback. */
export async function openRelaySession(deps: Pick<MembershipDeps, 'db' | 'config'>, actor: Actor, provider: string) {
  const sessionCode = randomCode(8);
  await insertRelaySession(deps.db, {
    id: randomUUID(),
    churchId: actor.churchId,
    userId: actor.id,
    sessionCode,
    provider,
    expiresAt: secondsFromNow(RELAY_SECONDS),
  });
  return { sessionCode, redirectUri: `${deps.config.MEMBERSHIP_PUBLIC_URL.replace(/\/+$/, '')}/oauth/relay/callback`, expiresIn: RELAY_SECONDS, interval: 5 };
}

/** A relay session polled by its code (the code is the secret): a completed session answers its code once and is gone; unknown or expired → 404. */
export async function pollRelaySession(deps: Pick<MembershipDeps, 'db' | 'secrets'>, sessionCode: string) {
  const code = sessionCode.toUpperCase();
  const session = await liveRelaySession(deps.db, code, clock.now());
  if (!session) throw notFound('Session');
  if (session.status === 'completed') {
    const taken = await takeRelayCode(deps.db, code);
    if (!taken) throw notFound('Session');
    return { status: 'completed' as const, authCode: deps.secrets.decrypt(taken) };
  }
  return { status: 'pending' as const, expiresIn: Math.max(0, Math.floor((session.expiresAt.getTime() - clock.now().getTime()) / 1000)) };
}

/** The provider's return (`?code&state=<sessionCode>`): the code kept (encrypted) for the session, and what to tell the person. */
export async function finishRelay(deps: Pick<MembershipDeps, 'db' | 'secrets'>, query: { code?: string; state?: string; error?: string }): Promise<{ title: string; message: string }> {
  const { code, state, error } = query;
  let title = 'Signed in';
  let message = 'You can close this window and go back to the app.';
  if (error) [title, message] = ['Sign-in failed', `The provider said: ${error}. Close this window and try again from the app.`];
  else if (!code || !state) [title, message] = ['Sign-in failed', 'The provider sent no code. Close this window and start again from the app.'];
  else if (!(await completeRelaySession(deps.db, state.toUpperCase(), deps.secrets.encrypt(code), clock.now()))) {
    [title, message] = ['This sign-in has expired', 'Close this window and start again from the app.'];
  }
  return { title, message };
}
