import { randomUUID } from 'node:crypto';
import { LOGIN_TOKEN_SECONDS } from '@church/auth';
import type { DbOrTx, RevocationEntry, ServiceDeps } from '@church/common';
import { keysOfUsers } from '../repos/api-keys';
import { insertRevocations, pruneRevocations, revocationsFrom } from '../repos/revocations';

/**
 * Writes revocation stamps in the caller's transaction: every token of `userId` (of `userId` in `churchId`)
 * minted before now is refused once the transaction commits and the stamps spread (`announce`). Tokens minted
 * from an API key carry the key's id (so revoking the key refuses them at once); the keys of a user whose rights
 * change are stamped with them, so those tokens fall with their user's. A stamp may name a key itself.
 */
export async function revokeTokens(tx: DbOrTx, stamps: Array<{ userId: string; churchId?: string | null }>): Promise<RevocationEntry[]> {
  if (!stamps.length) return [];
  const atMs = Date.now();
  const keyStamps: Array<{ userId: string; churchId: string }> = [];
  // One look-up per church the stamps name (a role's holders are many users of one church).
  const byChurch = new Map<string | null, string[]>();
  for (const s of stamps) byChurch.set(s.churchId ?? null, [...(byChurch.get(s.churchId ?? null) ?? []), s.userId]);
  for (const [churchId, userIds] of byChurch) for (const key of await keysOfUsers(tx, userIds, churchId)) keyStamps.push({ userId: key.id, churchId: key.churchId });
  const entries = [...stamps, ...keyStamps].map((s) => ({ userId: s.userId, churchId: s.churchId ?? null, at: atMs }));
  await insertRevocations(tx, entries.map((e) => ({ id: randomUUID(), userId: e.userId, churchId: e.churchId, atMs: e.at })));
  return entries;
}

/** After commit: this replica refuses the tokens at once, the others within the poll or at once through Redis. */
export function announce(deps: Pick<ServiceDeps, 'revocations'>, entries: RevocationEntry[]): Promise<void> {
  return entries.length ? deps.revocations.publish(entries) : Promise.resolve();
}

/** Stamps written since `since` (ms) for the other services' pollers; stamps older than a token's life are pruned. */
export async function revocationsSince(db: DbOrTx, since: number): Promise<{ entries: RevocationEntry[]; now: number }> {
  const now = Date.now();
  await pruneRevocations(db, now - LOGIN_TOKEN_SECONDS * 1000 - 3_600_000);
  const rows = await revocationsFrom(db, Math.floor(since));
  return { entries: rows.map((r) => ({ userId: r.userId, churchId: r.churchId, at: r.atMs })), now };
}
