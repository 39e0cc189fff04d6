import { z } from 'zod';
import { Id } from '@church/common';

/** The request and answer shapes of `src/routes/questions.ts` (what it accepts and what leaves it). */

export const FormQuery = z.object({ formId: Id });
