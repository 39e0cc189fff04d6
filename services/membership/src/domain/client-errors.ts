import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { tooManyRequests, type DbOrTx } from '@church/common';
import { countClientErrorsSince, insertClientError } from '../repos/client-errors';

/** Per user: at most this many reports in any rolling minute (a crash loop must not flood the table). */
export const CLIENT_ERRORS_PER_MINUTE = 30;

// Over-long text is cut rather than refused: a stack trace longer than the cap is still worth keeping.
const capped = (max: number) =>
  z
    .string()
    .nullish()
    .transform((v) => (v == null ? v : v.slice(0, max)));

export const ClientErrorSave = z.object({
  application: capped(100),
  errorType: capped(100),
  originUrl: capped(2000),
  message: capped(2000),
  details: capped(20_000),
});

export const ClientError = z.object({
  id: z.string(),
  application: z.string().nullish(),
  errorType: z.string().nullish(),
  originUrl: z.string().nullish(),
  message: z.string().nullish(),
  details: z.string().nullish(),
  createdAt: z.date(),
});

/** Stores one report, or answers 429 when the user has sent too many in the last minute. */
export async function recordClientError(db: DbOrTx, churchId: string, userId: string, input: z.output<typeof ClientErrorSave>) {
  if ((await countClientErrorsSince(db, churchId, userId, new Date(Date.now() - 60_000))) >= CLIENT_ERRORS_PER_MINUTE) throw tooManyRequests(60);
  return insertClientError(db, { id: randomUUID(), churchId, userId, ...input });
}
