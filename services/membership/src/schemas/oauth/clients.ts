import { z } from 'zod';
import { parseScopes, unknownScopes } from '../../domain/oauth/scopes';

/** A list sent as an array or as one comma- or space-separated string. */
export const list = <T extends z.ZodType<string, string>>(item: T) =>
  z
    .union([z.array(z.string()), z.string()])
    .transform((v) => (Array.isArray(v) ? v : v.split(/[\s,]+/)).map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(item).max(50));

export const Scopes = list(z.string()).refine((s) => unknownScopes(parseScopes(s)).length === 0, { message: 'unknown scope' });

/** The request and answer shapes of `src/routes/oauth/clients.ts` (what it accepts and what leaves it). */

export const RedirectUri = z.url({ message: 'must be an absolute address' });

export const ClientSave = z.object({
  id: z.uuid().optional(),
  name: z.string().trim().min(1).max(200),
  clientId: z
    .string()
    .regex(/^[A-Za-z0-9._-]{3,100}$/, 'letters, digits, . _ - (3 to 100)')
    .optional(),
  redirectUris: list(RedirectUri).optional(),
  scopes: Scopes.optional(),
});

/** A client as admins see it; the secret is stored hashed and never read back. */
export const ClientOut = z.object({
  id: z.string(),
  name: z.string(),
  clientId: z.string(),
  redirectUris: z.array(z.string()),
  scopes: z.array(z.string()),
  createdAt: z.date(),
});

/** Only the create response carries the secret, once. */
export const SavedClient = ClientOut.extend({ clientSecret: z.string().optional() });

export const PublicClient = ClientOut.omit({ createdAt: true });
