import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hasPermission } from '@church/auth';
import { REMOTE, badRequest, checkReferences, membershipInternal, unauthorized, type DbOrTx } from '@church/common';
import { bytesOfContent } from '../../repos/media/files';

/** Spec limit: at most 100 MB of files per content item. */
export const MAX_BYTES_PER_CONTENT = 100 * 1024 * 1024;

/** How long a direct-upload form (or address) stays valid; a waiting upload holds its bytes of the quota that long. */
export const UPLOAD_FORM_SECONDS = 900;

/**
 * The content item a file belongs to: the one named, or for a website file sent with none (B1Admin's site file
 * manager sends `""`) the church's site library, kept under the church's id, so both count against one quota.
 */
export const contentIdOf = (churchId: string, contentId: string): string => contentId || churchId;

/**
 * A file's item is polymorphic (`contentType`, `contentId`): the types whose item is a record of a church name it
 * by its type (a group's files and its leaders' files name a group, membership's); `website` names the church's
 * library (the church's own id), and any other type names no record known here, so it is not checked (README).
 */
const ITEM_OF_TYPE = { group: REMOTE.groups, groupLeader: REMOTE.groups } as const;

/** The items files are saved for are the church's, by their type (a 400 naming `contentId`); before any transaction. */
export async function checkContentItems(req: FastifyRequest, items: Array<{ contentType: string; contentId: string }>): Promise<void> {
  const groupItems = items.map((item) => ({ contentId: Object.hasOwn(ITEM_OF_TYPE, item.contentType) ? item.contentId : undefined }));
  await checkReferences(req, groupItems, { contentId: REMOTE.groups });
}

/**
 * Files of a content item may be managed by Content.Edit holders, and for a group's content (`contentType`
 * `group`) by members of that group: leaders are known from the token, members are asked of membership.
 */
export async function assertCanManage(app: FastifyInstance, req: FastifyRequest, contentType: string, contentId: string): Promise<void> {
  const auth = req.auth;
  if (hasPermission(auth, 'Content.Edit', 'ContentApi')) return;
  if (contentType === 'group' && auth.personId) {
    if (auth.leaderGroupIds.includes(contentId)) return;
    const answer = await app.deps.internal.post('membership', membershipInternal.peopleFacts.path, { churchId: auth.churchId, ids: [auth.personId] }, { requestId: req.id });
    const [me] = membershipInternal.peopleFacts.answer.parse(answer);
    if (me?.groupIds.includes(contentId)) return;
  }
  throw unauthorized('Missing permission: Content.Edit or group member');
}

/**
 * Refuses an upload that would take a content item past 100 MB (`param` names the size field); answers the
 * bytes the item has left after it.
 */
export async function assertQuota(db: DbOrTx, churchId: string, contentType: string, contentId: string, adding: number, param: string, replacingId?: string): Promise<number> {
  const used = await bytesOfContent(db, churchId, contentType, contentId, UPLOAD_FORM_SECONDS, replacingId);
  if (used + adding > MAX_BYTES_PER_CONTENT) {
    throw badRequest(param, `files of this content item would take ${Math.ceil((used + adding) / 1048576)} MB; at most 100 MB are allowed`);
  }
  return MAX_BYTES_PER_CONTENT - used - adding;
}
