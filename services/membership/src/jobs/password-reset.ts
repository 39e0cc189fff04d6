import { z } from 'zod';
import { DELIVERY_RETRIES, handle, jobContract } from '@church/common';
import type { MembershipDeps } from '../deps';
import { sendReset } from '../domain/account';

export const PasswordResetRequest = z.object({ email: z.string().max(320), appName: z.string().max(100).optional(), appUrl: z.string().max(2000).optional() });

/**
 * `forgot` answers at once and hands the request here: the account is looked up, a reset link made and the
 * email queued after the caller has its answer, so a known and an unknown email cost the caller the same. It
 * delivers something to a person, so it retries as long as a mail does (`DELIVERY_RETRIES`, about an hour): a
 * database restart in the minute after "check your mail" delays the link instead of losing it.
 */
export const passwordReset = jobContract({ name: 'membership.passwordReset', schema: PasswordResetRequest, ...DELIVERY_RETRIES });

export function passwordResetJob(deps: MembershipDeps) {
  return handle(passwordReset, (data) => sendReset(deps.db, deps, data.email, data));
}
