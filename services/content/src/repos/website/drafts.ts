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
