import { z } from 'zod';
import { defineJob, type ServiceDeps } from '@church/common';
import { sendReset } from '../domain/account';

export const PASSWORD_RESET_JOB = 'membership.passwordReset';

export const PasswordResetRequest = z.object({ email: z.string().max(320), appName: z.string().max(100).optional(), appUrl: z.string().max(2000).optional() });

/**
 * `forgot` answers at once and hands the request here: the account is looked up, a reset link made and the
 * email queued after the caller has its answer, so a known and an unknown email cost the caller the same.
 */
export function passwordResetJob(deps: ServiceDeps) {
  return defineJob({
    name: PASSWORD_RESET_JOB,
    schema: PasswordResetRequest,
    attempts: 3,
    backoffMs: 1000,
    handler: (data) => sendReset(deps.db, deps, data.email, data),
  });
}
