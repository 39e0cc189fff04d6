import { z } from 'zod';

/** Settings of the website half (none beyond the shared base yet). */
export const websiteConfig = z.object({});
