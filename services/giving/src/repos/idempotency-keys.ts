import { and, eq, lt } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { idempotencyKeys } from '../db/schema';

/** A key of a church, named by its scope (`charge`, `subscribe`, `donations`) and the caller's key. */
export interface KeyRef {
  churchId: string;
  scope: string;
  key: string;
}

const whereKey = (k: KeyRef) => and(eq(idempotencyKeys.churchId, k.churchId), eq(idempotencyKeys.scope, k.scope), eq(idempotencyKeys.key, k.key));

/** Frees the key when it was claimed before `before` (older than the window). */
export async function freeExpiredKey(db: DbOrTx, k: KeyRef, before: Date): Promise<void> {
  await db.delete(idempotencyKeys).where(and(whereKey(k), lt(idempotencyKeys.createdAt, before)));
}

/** Claims the key for a request (its hash kept); false when it is taken. */
export async function claimKey(db: DbOrTx, k: KeyRef, requestHash: string): Promise<boolean> {
  const [claimed] = await db.insert(idempotencyKeys).values({ ...k, requestHash }).onConflictDoNothing().returning({ key: idempotencyKeys.key });
  return !!claimed;
}

/** The key's claim: the request's hash and, once answered, the first answer (status null while it runs). */
export async function keyClaim(db: DbOrTx, k: KeyRef): Promise<{ requestHash: string; statusCode: number | null; response: unknown } | undefined> {
  const [row] = await db
    .select({ requestHash: idempotencyKeys.requestHash, statusCode: idempotencyKeys.statusCode, response: idempotencyKeys.response })
    .from(idempotencyKeys)
    .where(whereKey(k))
    .limit(1);
  return row;
}

/** Keeps the first answer under the key. */
export async function keepAnswer(db: DbOrTx, k: KeyRef, statusCode: number, response: unknown): Promise<void> {
  await db.update(idempotencyKeys).set({ statusCode, response: response as object }).where(whereKey(k));
}

/** Releases the key (its request failed: a retry runs again). */
export async function releaseKey(db: DbOrTx, k: KeyRef): Promise<void> {
  await db.delete(idempotencyKeys).where(whereKey(k));
}
