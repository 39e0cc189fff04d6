import { z } from 'zod';
import { Id } from '@church/common';

/** The input types B1Admin's custom field editor offers. */
export const FIELD_TYPES = ['Textbox', 'Whole Number', 'Decimal', 'Date', 'Yes/No', 'Multiple Choice'] as const;

/** The request and answer shapes of `src/routes/person-fields.ts` (what it accepts and what leaves it). */

export const PersonField = z.object({
  id: z.string(),
  churchId: z.string(),
  name: z.string(),
  fieldType: z.string(),
  choices: z.string().nullable(),
  sort: z.number(),
});

/** Choices are JSON text of `[{value, text}]` (the apps parse it). */
export const Choices = z
  .string()
  .max(20_000)
  .refine((text) => {
    try {
      const list: unknown = JSON.parse(text);
      return Array.isArray(list) && list.every((c) => c && typeof c === 'object' && typeof (c as { value?: unknown }).value === 'string');
    } catch {
      return false;
    }
  }, 'must be JSON text of a list of {value, text}')
  .nullish();

export const FieldSave = z.object({
  id: Id.optional(),
  name: z.string().trim().min(1, 'name is required').max(100),
  fieldType: z.enum(FIELD_TYPES, { message: `must be one of ${FIELD_TYPES.join(', ')}` }).optional(),
  choices: Choices,
  sort: z.number().int().min(0).max(100_000).optional(),
});

export const FieldValue = z.object({ id: z.string(), churchId: z.string(), personId: z.string(), fieldId: z.string(), value: z.string() });

export const ValueSave = z.object({ personId: Id, fieldId: Id, value: z.union([z.string(), z.number(), z.boolean()]).nullish() });
