import { z } from 'zod';

/** A connected app as B1Admin's developer screen lists it (scopes space-separated, as it splits them). */
export const Connection = z.object({
  id: z.string(),
  clientId: z.string(),
  clientName: z.string(),
  scopes: z.string(),
  createdAt: z.date(),
  expiresAt: z.date(),
});

/** The outside provider an app signs in with (B1Admin sends a content or storage provider's id). */
export const RelayCreate = z.object({ provider: z.string().trim().min(1, 'provider is required').max(50).regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, dots, dashes and underscores only') });
export const RelaySession = z.object({ sessionCode: z.string(), redirectUri: z.string(), expiresIn: z.number(), interval: z.number() });
export const RelayParams = z.object({ sessionCode: z.string().trim().min(1).max(20) });
export const RelayPoll = z.object({ status: z.enum(['pending', 'completed']), expiresIn: z.number().optional(), authCode: z.string().optional() });
export const RelayCallbackQuery = z.object({
  code: z.string().max(4000).optional(),
  state: z.string().max(100).optional(),
  error: z.string().max(200).optional(),
});
