import { z } from 'zod';
import { Id } from '@church/common';
import { Person } from '../domain/people/person';

export const GdprParams = z.object({ personId: Id });

/** One person's data from every module, as one JSON download (B1Admin's GdprActions saves it as a file). */
export const GdprExport = z.object({
  exportedAt: z.date(),
  churchId: z.string(),
  personId: z.string(),
  person: Person,
  membership: z.record(z.string(), z.unknown()),
  /** each other module's records about the person, by module and kind of record */
  modules: z.record(z.string(), z.record(z.string(), z.array(z.unknown()))),
});

export const GdprAnonymized = z.object({ personId: z.string(), modules: z.record(z.string(), z.record(z.string(), z.number())) });
