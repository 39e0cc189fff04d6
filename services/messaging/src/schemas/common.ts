import { z } from 'zod';
import { Id } from '@church/common';

// What the messaging API accepts and answers, by resource (one file each). Response schemas list every field that
// leaves the service: they filter what leaves and serialize it. Save bodies strip unknown fields (the apps post back
// the records they read) and the church comes from the token.

/**
 * A content type (`group`, `person`, `sermon` ...). Never a name of `Object.prototype`'s (`constructor`, `__proto__`,
 * `toString`): such a word names no kind of content, and a type is looked up by the caller's string.
 */
export const ContentType = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine((s) => !Object.hasOwn(Object.prototype, s), 'is not a content type');
/** A content id: usually a UUID, sometimes a key of another module. */
export const ContentId = z.string().trim().min(1).max(200);
export { ChurchParams } from '@church/common';
export const ChurchIdParams = z.object({ churchId: Id, id: Id });
export const ContentParams = z.object({ contentType: ContentType, contentId: ContentId });
export const Page = z.object({
  page: z.coerce.number().int().min(1).max(100000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(20),
});
export const MessageText = z.string().max(10_000);
export const DisplayName = z.string().trim().max(200);
/** A time as it leaves the service (ISO 8601). */
export const Stamp = z.date();
const nullable = <T extends z.ZodType>(t: T) => t.nullable();
export const Text = nullable(z.string());
export { Empty } from '@church/common';
