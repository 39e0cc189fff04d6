import { z } from 'zod';
import { Condition } from '../lib/advanced-search';
import { PersonList } from '../domain/people/person';

/** The request and answer shapes of `src/routes/query.ts` (what it accepts and what leaves it). */

export const Body = z.object({
  text: z.string().trim().min(1, 'text is required').max(500),
  subDomain: z.string().max(100).optional(),
  siteUrl: z.string().max(500).optional(),
});

export const Answer = z.object({ conditions: z.array(Condition), people: PersonList, source: z.enum(['parser', 'ai']) });
