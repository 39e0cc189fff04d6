import { z } from 'zod';

/** Settings of the media half: the outside systems' keys and base URLs. */
export const mediaConfig = z.object({});
