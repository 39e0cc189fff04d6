import { badRequest, conflict, notFound, type Actor, type Db, type DbOrTx, type ServiceDeps } from '@church/common';
import { SERVER_CHURCH_ID } from '../../db/schema';
import { findClientByClientId, insertClient, updateClient, type OauthClientRow } from '../../repos/oauth';
import { DEVICE_GRANT, pollDeviceCode } from './device';
import { OAuthError, authenticateClient, createCode, exchangeCode, grantedScopes, refresh, type TokenResponse } from './tokens';
import { randomSecret, sha256 } from '../secrets';

// The OAuth endpoints' work: consent (a code), the token endpoint's grants, and the clients server admins register.

/**
 * The code flow's consent (`oauth/authorize`): the signed-in user, in a chosen church, grants a registered client the
 * scopes it asks for (within the client's); a one-time code for the client's redirect. Errors use the spec's body.
 */
export async function authorize(
  db: DbOrTx,
  actor: Actor,
  input: { client_id: string; redirect_uri: string; response_type: string; scope?: string; state?: string },
): Promise<{ code: string; state?: string }> {
  const { client_id, redirect_uri, response_type, scope, state } = input;
  if (response_type !== 'code') throw badRequest('response_type', 'response_type must be code');
  const client = await findClientByClientId(db, client_id);
  if (!client) throw badRequest('client_id', 'Unknown client');
  if (!client.redirectUris.includes(redirect_uri)) throw badRequest('redirect_uri', 'redirect_uri is not registered for this client');
  if (actor.churchId === SERVER_CHURCH_ID) throw badRequest('churchId', 'Select a church before authorizing an application');
  let scopes: string[];
  try {
    scopes = grantedScopes(client, scope);
  } catch (err) {
    if (err instanceof OAuthError) throw badRequest('scope', err.description);
    throw err;
  }
  const code = await createCode(db, { client, userId: actor.id, churchId: actor.churchId, redirectUri: redirect_uri, scopes });
  return { code, ...(state !== undefined ? { state } : {}) };
}

/** What the token endpoint reads of its form (RFC 6749 §4.1.3, §6; RFC 8628 §3.4). */
export interface TokenRequest {
  grant_type?: string;
  code?: string;
  redirect_uri?: string;
  refresh_token?: string;
  device_code?: string;
}

/**
 * The token endpoint: a code, a refresh token or an approved device code exchanged for tokens by the client that
 * holds it (`credentials`: from HTTP Basic or the form). Failures are OAuthErrors (RFC 6749 §5.2).
 */
export async function grantTokens(db: DbOrTx, deps: ServiceDeps, body: TokenRequest, credentials: { clientId?: string; secret?: string | null }): Promise<TokenResponse> {
  const { clientId, secret } = credentials;
  switch (body.grant_type) {
    case 'authorization_code': {
      if (!body.code || !body.redirect_uri) throw new OAuthError('invalid_request', 'code and redirect_uri are required');
      const client = await authenticateClient(db, clientId, secret);
      return exchangeCode(db, deps, { code: body.code, clientId: client.clientId, redirectUri: body.redirect_uri });
    }
    case 'refresh_token': {
      if (!body.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
      const client = await authenticateClient(db, clientId, secret);
      return refresh(db, deps, { refreshToken: body.refresh_token, clientId: client.clientId });
    }
    case DEVICE_GRANT: {
      // Devices are public clients (RFC 8628 §3.4): no secret is asked.
      if (!body.device_code) throw new OAuthError('invalid_request', 'device_code is required');
      const client = await authenticateClient(db, clientId);
      return pollDeviceCode(db, deps, body.device_code, client.clientId);
    }
    case undefined:
      throw new OAuthError('invalid_request', 'grant_type is required');
    default:
      throw new OAuthError('unsupported_grant_type', `Unsupported grant_type ${body.grant_type}`);
  }
}

/**
 * Saves OAuth clients (server admins) in one transaction; a new client gets a secret, answered once and stored
 * hashed. A clientId another client holds → 409.
 */
export function saveClients(
  db: Db,
  items: Array<{ id?: string; name: string; clientId?: string; redirectUris?: string[]; scopes?: string[] }>,
): Promise<Array<OauthClientRow & { clientSecret?: string }>> {
  return db.transaction(async (tx) => {
    const out: Array<OauthClientRow & { clientSecret?: string }> = [];
    for (const item of items) {
      const values = { name: item.name, redirectUris: item.redirectUris, scopes: item.scopes, ...(item.clientId ? { clientId: item.clientId } : {}) };
      if (item.clientId) {
        const holder = await findClientByClientId(tx, item.clientId);
        if (holder && holder.id !== item.id) throw conflict('This clientId is taken', 'clientId');
      }
      if (item.id) {
        const updated = await updateClient(tx, item.id, values);
        if (!updated) throw notFound('Client');
        out.push(updated);
        continue;
      }
      const clientSecret = randomSecret();
      const row = await insertClient(tx, {
        ...values,
        clientId: item.clientId ?? randomSecret(12),
        clientSecretHash: sha256(clientSecret),
        redirectUris: item.redirectUris ?? [],
        scopes: item.scopes ?? [],
      });
      out.push({ ...row, clientSecret });
    }
    return out;
  });
}
