import { z } from 'zod';
import { field } from '../oauth';

/** The request and answer shapes of `src/routes/oauth/grants.ts` (what it accepts and what leaves it). */

export const AuthorizeBody = z.object({
  client_id: z.string().min(1),
  redirect_uri: z.string().min(1),
  response_type: z.string().min(1),
  scope: z.string().optional(),
  state: z.string().max(2000).optional(),
});

export const TokenBody = z.object({
  grant_type: field,
  code: field,
  redirect_uri: field,
  refresh_token: field,
  device_code: field,
  client_id: field,
  client_secret: z.string().optional(),
  scope: z.string().optional(),
});
