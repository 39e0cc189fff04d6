import { z } from 'zod';
import { Id } from '@church/common';
import { HOST_NAME } from '../domain/domains';

/** The request and answer shapes of `src/routes/domains.ts` (what it accepts and what leaves it). */

export const Domain = z.object({ id: z.string(), churchId: z.string(), domainName: z.string(), siteId: z.string().nullable(), lastChecked: z.date().nullable(), isStale: z.boolean() });

export const DomainList = z.array(Domain);

export const PublicDomain = z.object({ id: z.string(), churchId: z.string(), domainName: z.string() });

export const DomainName = z.string().trim().toLowerCase().max(253).regex(HOST_NAME, 'must be a host name such as www.example.org');

export const NameParams = z.object({ domainName: DomainName });

/** `siteId`: the church's additional website the domain serves (B1Admin's domain settings); null: the main site. */
export const DomainSave = z.object({ id: Id.optional(), domainName: DomainName, siteId: Id.nullish() });
