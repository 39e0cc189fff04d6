import { z } from 'zod';

/** A bulk change as B1Admin's batches page lists it. */
export const Batch = z.object({
  id: z.string(),
  churchId: z.string(),
  userId: z.string().nullable(),
  label: z.string().nullable(),
  source: z.string().nullable(),
  status: z.string(),
  itemCount: z.number(),
  created: z.date(),
  completedAt: z.date().nullable(),
  undoneAt: z.date().nullable(),
});
export const BatchResults = z.object({
  batch: Batch,
  rows: z.array(z.object({ id: z.string(), action: z.string(), entityType: z.string(), entityId: z.string(), created: z.date() })),
});
export const UndoAnswer = z.object({
  restored: z.number(),
  skippedConflicts: z.array(z.object({ entityType: z.string(), entityId: z.string() })),
  failed: z.array(z.object({ entityType: z.string(), entityId: z.string(), reason: z.string() })),
  status: z.string(),
});
