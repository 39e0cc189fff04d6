import { and, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { arrangementKeys, arrangements, songs } from '../../db/media';

/** Deletes an arrangement with its keys, then its song when no arrangement of it remains. */
export async function deleteArrangement(tx: DbOrTx, churchId: string, arrangement: { id: string; songId: string }): Promise<{ songDeleted: boolean }> {
  await tx.delete(arrangementKeys).where(and(eq(arrangementKeys.churchId, churchId), eq(arrangementKeys.arrangementId, arrangement.id)));
  await tx.delete(arrangements).where(and(eq(arrangements.churchId, churchId), eq(arrangements.id, arrangement.id)));
  const [left] = await tx.select({ id: arrangements.id }).from(arrangements).where(and(eq(arrangements.churchId, churchId), eq(arrangements.songId, arrangement.songId))).limit(1);
  if (left) return { songDeleted: false };
  await tx.delete(songs).where(and(eq(songs.churchId, churchId), eq(songs.id, arrangement.songId)));
  return { songDeleted: true };
}

/** Deletes a song with its arrangements and their keys. */
export async function deleteSong(tx: DbOrTx, churchId: string, songId: string): Promise<void> {
  const arr = await tx.select({ id: arrangements.id }).from(arrangements).where(and(eq(arrangements.churchId, churchId), eq(arrangements.songId, songId)));
  if (arr.length) await tx.delete(arrangementKeys).where(and(eq(arrangementKeys.churchId, churchId), inArray(arrangementKeys.arrangementId, arr.map((a) => a.id))));
  await tx.delete(arrangements).where(and(eq(arrangements.churchId, churchId), eq(arrangements.songId, songId)));
  await tx.delete(songs).where(and(eq(songs.churchId, churchId), eq(songs.id, songId)));
}
