import { z } from 'zod';
import { Id } from '@church/common';

/** The request and answer shapes of `src/routes/roles/roles.ts` (what it accepts and what leaves it). */

export const Role = z.object({ id: z.string(), churchId: z.string(), name: z.string() });

export const RoleSave = z.object({ id: Id.optional(), name: z.string().trim().min(1).max(100) });
