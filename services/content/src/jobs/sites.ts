import { handle, reportChanges, siteRemoved, type JobDefinition } from '@church/common';
import type { ContentDeps } from '../deps';
import { removeSiteContent } from '../repos/website/site-removal';

/**
 * `content.siteRemoved` (membership enqueues it in the transaction that deletes a site): the site's pages,
 * blocks, links and styles go in one transaction, the removal of each page and block reported with it. The
 * main site (no id) is never named by the contract, so it cannot be removed this way.
 */
export function siteJobs(deps: ContentDeps): JobDefinition[] {
  return [
    handle(siteRemoved, async ({ churchId, siteId }, ctx) => {
      const removed = await deps.db.transaction(async (tx) => {
        const gone = await removeSiteContent(tx, churchId, siteId);
        const changes = [
          ...gone.pageIds.map((id) => ({ churchId, entityType: 'page', entityId: id, action: 'deleted' })),
          ...gone.blockIds.map((id) => ({ churchId, entityType: 'block', entityId: id, action: 'deleted' })),
        ];
        await reportChanges({ module: 'content', queue: deps.queue }, changes, { tx });
        return gone;
      });
      ctx.log.info({ churchId, siteId, pages: removed.pageIds.length, blocks: removed.blockIds.length, links: removed.links }, 'site content removed');
    }),
  ];
}
