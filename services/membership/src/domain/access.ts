import { rule } from '@church/auth';

/**
 * Spec `—` for routes that act on the account itself (change email or password, delete the user, create or
 * switch churches, approve OAuth grants): any login token, but not an OAuth access token, whose scopes
 * were granted for church data and must not reach the account.
 */
export const userSession = rule('—', (_req, auth) => auth.scope === undefined);
