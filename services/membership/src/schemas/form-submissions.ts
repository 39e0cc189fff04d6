import { z } from 'zod';

/** The request and answer shapes of `src/routes/form-submissions.ts` (what it accepts and what leaves it). */

export const Include = z
  .string()
  .optional()
  .transform((v) => new Set((v ?? '').split(',').map((s) => s.trim().toLowerCase())))
  .pipe(z.set(z.enum(['form', 'questions', 'answers', ''], { message: 'include may name form, questions, answers' })));
