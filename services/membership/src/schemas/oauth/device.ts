import { z } from 'zod';

/** The request and answer shapes of `src/routes/oauth/device.ts` (what it accepts and what leaves it). */

export const DeviceAuthorization = z.object({
  device_code: z.string(),
  user_code: z.string(),
  verification_uri: z.string(),
  verification_uri_complete: z.string(),
  expires_in: z.number(),
  interval: z.number(),
});

export const Decision = z.object({ status: z.enum(['approved', 'denied']) });
