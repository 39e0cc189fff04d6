import { z } from 'zod';
import { Email, Id } from '@church/common';

export const orNone = (v: unknown) => (v === '' || v === null ? undefined : v);

/** The request and answer shapes of `src/routes/people/public.ts` (what it accepts and what leaves it). */

export const GuestMember = z.object({
  firstName: z.string().trim().min(1, 'firstName is required').max(100),
  lastName: z.string().trim().min(1, 'lastName is required').max(100),
  email: z.preprocess(orNone, Email.optional()),
  phone: z.preprocess(orNone, z.string().trim().max(50).optional()),
});

export const Name = z.string().trim().max(100).optional();

/** What a public caller learns about a person: never their address, phones or dates. */
export const PublicPerson = z.object({
  id: z.string(),
  name: z.object({ first: z.string().nullish(), last: z.string().nullish(), display: z.string().nullish() }),
  contactInfo: z.object({ email: z.string().nullish() }),
  membershipStatus: z.string().nullish(),
});

export const PublicEmail = z.object({
  churchId: Id,
  personId: Id,
  subject: z.string().trim().min(1, 'subject is required').max(200),
  body: z.string().trim().min(1, 'body is required').max(10_000),
  appName: z.string().trim().max(100).optional(),
});
