import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { pages } from '../../db/website';

/** Sets (or, with null, removes) a page's published version. */
export async function setPublished(tx: DbOrTx, churchId: string, pageId: string, published: { tree: unknown; snapshot: Record<string, unknown> } | null, at: Date | null): Promise<void> {
  await tx
    .update(pages)
    .set({ published, publishedAt: at, updatedAt: new Date() })
    .where(and(eq(pages.churchId, churchId), eq(pages.id, pageId)));
}

/** What decides whether a caller reads a page's working rows: its gate, and whether it has a published version. */
export async function pageDraftFacts(db: DbOrTx, churchId: string, pageId: string) {
  const [row] = await db
    .select({ visibility: pages.visibility, groupIds: pages.groupIds, publishedAt: pages.publishedAt })
    .from(pages)
    .where(and(eq(pages.churchId, churchId), eq(pages.id, pageId)))
    .limit(1);
  return row ?? null;
}
