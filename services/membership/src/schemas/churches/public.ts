import { z } from 'zod';

/** The request and answer shapes of `src/routes/churches/public.ts` (what it accepts and what leaves it). */

export const Name = z.string().trim().min(1).max(100);
