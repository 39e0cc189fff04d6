import { z } from 'zod';

/** RFC 6749 §5.2 error body: the token and device-authorization endpoints answer OAuth clients, not the spec's apps. */
export const OAuthErrorBody = z.object({ error: z.string(), error_description: z.string() });

export const TokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number(),
  refresh_token: z.string(),
  scope: z.string(),
});

/** A form or JSON field: strings only (a repeated form field or a number is refused as invalid_request). */
export const field = z.string().min(1).optional();
