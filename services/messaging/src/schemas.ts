import { z } from 'zod';
import { Id } from '@church/common';

/** A content type (`group`, `person`, `sermon` ...). */
export const ContentType = z.string().trim().min(1).max(100);
/** A content id: usually a UUID, sometimes a key of another module. */
export const ContentId = z.string().trim().min(1).max(200);
export const ChurchParams = z.object({ churchId: Id });
export const ChurchIdParams = z.object({ churchId: Id, id: Id });
export const ContentParams = z.object({ contentType: ContentType, contentId: ContentId });
export const Page = z.object({
  page: z.coerce.number().int().min(1).max(100000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(20),
});
export const MessageText = z.string().max(10_000);
export const DisplayName = z.string().trim().max(200);
