import type { DbOrTx, ServiceDeps } from '@church/common';
import { notFound } from '@church/common';
import { findClientByClientId, findDeviceCode, insertDeviceCode, pendingByUserCode, recordPoll, spendApprovedDeviceCode, type OauthClientRow } from '../../repos/oauth';
import { clock, secondsFromNow } from '../clock';
import { OAuthError, issueTokens, type TokenResponse } from './tokens';
import { OAUTH_SCOPES } from './scopes';
import { USER_CODE_ALPHABET, randomCode, randomSecret, sha256 } from '../secrets';

/** RFC 8628 numbers the spec fixes: a device code lives 900 s and is polled every 5 s. */
export const DEVICE_CODE_SECONDS = 900;
export const POLL_INTERVAL_SECONDS = 5;
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** `ABCD-EFGH` for people to read and type. */
export const showUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

/** What a person typed, as stored: hyphens and spaces dropped, upper case; null when it cannot be a code. */
export function normalizeUserCode(input: string): string | null {
  const code = input.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== 8 || [...code].some((c) => !USER_CODE_ALPHABET.includes(c))) return null;
  return code;
}

export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** Starts a device authorization: a secret device code for the device, a short user code for the person. */
export async function startDeviceAuthorization(db: DbOrTx, client: OauthClientRow, scopes: string[], verificationUri: string): Promise<DeviceAuthorization> {
  const now = clock.now();
  let userCode = randomCode(8);
  // 31^8 codes: a collision among live codes is unlikely, but two live codes must never share a user code.
  for (let i = 0; i < 5 && (await pendingByUserCode(db, userCode, now)); i++) userCode = randomCode(8);
  const deviceCode = randomSecret();
  await insertDeviceCode(db, {
    deviceCodeHash: sha256(deviceCode),
    userCode,
    clientId: client.clientId,
    scopes,
    expiresAt: secondsFromNow(DEVICE_CODE_SECONDS),
    pollInterval: POLL_INTERVAL_SECONDS,
  });
  const complete = new URL(verificationUri);
  complete.searchParams.set('user_code', showUserCode(userCode));
  return {
    device_code: deviceCode,
    user_code: showUserCode(userCode),
    verification_uri: verificationUri,
    verification_uri_complete: complete.toString(),
    expires_in: DEVICE_CODE_SECONDS,
    interval: POLL_INTERVAL_SECONDS,
  };
}

/**
 * One poll of the token endpoint with the device grant (RFC 8628 §3.4–3.5): expired_token after the lifetime,
 * access_denied once denied, authorization_pending while waiting, slow_down when polled faster than the
 * interval (which then grows by 5 s), and the token exactly once after approval.
 */
export async function pollDeviceCode(db: DbOrTx, deps: ServiceDeps, deviceCode: string, clientId: string): Promise<TokenResponse> {
  const now = clock.now();
  const row = await findDeviceCode(db, sha256(deviceCode));
  if (!row || row.clientId !== clientId) throw new OAuthError('invalid_grant', 'Unknown device code');
  if (row.status === 'spent') throw new OAuthError('invalid_grant', 'The device code has already been used');
  if (row.expiresAt <= now) throw new OAuthError('expired_token', 'The device code has expired');
  if (row.status === 'denied') throw new OAuthError('access_denied', 'The user denied the authorization');
  const tooSoon = !!row.lastPolledAt && now.getTime() - row.lastPolledAt.getTime() < row.pollInterval * 1000;
  await recordPoll(db, row.id, now, tooSoon);
  if (tooSoon) throw new OAuthError('slow_down', `Poll at most every ${row.pollInterval + 5} seconds`);
  if (row.status === 'pending') throw new OAuthError('authorization_pending', 'The user has not approved the device yet');
  const approved = await spendApprovedDeviceCode(db, row.id);
  if (!approved?.userId || !approved.churchId) throw new OAuthError('invalid_grant', 'The device code has already been used');
  return issueTokens(db, deps, { userId: approved.userId, churchId: approved.churchId, clientId: approved.clientId, scopes: approved.scopes });
}

/** Where people enter user codes when `DEVICE_VERIFICATION_URI` is not configured (the admin app's device page). */
export const DEFAULT_VERIFICATION_URI = 'http://localhost:3000/device';

/**
 * A device authorization waiting for the signed-in user's decision, as the approval screen shows it: the code,
 * the client, the scopes it asks (described) and how long is left. An unknown, expired or decided code → 404.
 */
export async function pendingAuthorization(db: DbOrTx, userCode: string) {
  const code = normalizeUserCode(userCode);
  const now = clock.now();
  const row = code ? await pendingByUserCode(db, code, now) : undefined;
  if (!row) throw notFound('Pending device authorization');
  const client = await findClientByClientId(db, row.clientId);
  return {
    user_code: showUserCode(row.userCode),
    client_id: row.clientId,
    client_name: client?.name ?? row.clientId,
    scopes: row.scopes.map((name) => ({ name, description: OAUTH_SCOPES.get(name)?.description ?? name })),
    expires_in: Math.max(0, Math.floor((row.expiresAt.getTime() - now.getTime()) / 1000)),
  };
}
