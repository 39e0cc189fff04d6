import { z } from 'zod';

/** The request and answer shapes of `src/routes/users.ts` (what it accepts and what leaves it). */

export const Text = z.string().trim().max(100);

// The spec's floor for a password (updatePassword: at least 6 characters); the apps ask for 8 themselves.
export const Password = z.string().min(6, 'must be at least 6 characters').max(200);

export const Done = z.object({ success: z.boolean() });

export const UserDetails = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  registrationDate: z.date(),
  lastLogin: z.date().nullable(),
  churches: z.array(z.object({ id: z.string(), name: z.string(), subDomain: z.string().nullable(), viaMembership: z.boolean(), viaRoles: z.boolean() })),
});

export const LoginBody = z.object({
  email: z.string().trim().toLowerCase().optional(),
  password: z.string().optional(),
  jwt: z.string().optional(),
  authGuid: z.string().optional(),
});
