import { z } from 'zod';

/** What anyone may know of a church: its name, subdomain and address. */
export const PublicChurch = z.object({
  id: z.string(),
  name: z.string(),
  subDomain: z.string().nullable(),
  address1: z.string().nullable(),
  address2: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  zip: z.string().nullable(),
  country: z.string().nullable(),
});

/** A church as its users and server admins see it. */
export const Church = PublicChurch.extend({ archivedDate: z.date().nullable(), lastActivity: z.date() });

/** A church in the server admins' list (B1Admin's churches tab shows when it registered). */
export const AdminChurch = Church.extend({ registrationDate: z.date() });

/** DNS-label subdomains, compared case-insensitively. */
export const SubDomain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'letters, digits and hyphens only');

const required = (name: string) => z.string({ error: `${name} is required` }).trim().min(1, `${name} is required`).max(200);
const optionalText = z.string().trim().max(200).nullish();

/** `POST /add`: every missing required field is named in the 400. */
export const NewChurchBody = z.object({
  name: required('name'),
  subDomain: SubDomain.nullish(),
  address1: required('address1'),
  address2: optionalText,
  city: required('city'),
  state: required('state'),
  zip: required('zip'),
  country: required('country'),
});

/** `POST /`: fields left out stay as they are; the ones `add` requires cannot be cleared. */
export const ChurchUpdate = z.object({
  id: z.uuid().optional(),
  name: required('name').optional(),
  // The settings screens post back the church they loaded: an empty subDomain there leaves it as it is.
  subDomain: z.preprocess((v) => (v === null || v === '' ? undefined : v), SubDomain.optional()),
  address1: required('address1').optional(),
  address2: optionalText,
  city: required('city').optional(),
  state: required('state').optional(),
  zip: required('zip').optional(),
  country: required('country').optional(),
});
