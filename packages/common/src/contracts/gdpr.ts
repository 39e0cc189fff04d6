import { z } from 'zod';
import type { ModuleName } from '../config';

const Uuid = z.uuid();

/** The modules besides membership that keep personal data, and so answer the two GDPR contracts below. */
export const GDPR_MODULES = ['attendance', 'giving', 'messaging', 'content', 'doing'] as const satisfies readonly ModuleName[];
/** The person, and the logins linked to them in the church (records kept per user: settings, page history, linked accounts). */
const GdprBody = z.object({ churchId: Uuid, personId: Uuid, userIds: z.array(Uuid).max(100).default([]) });

/**
 * One person's records in a module, for a GDPR export: `{data: {<kind of record>: [rows]}}`, every row about the
 * person as the module's own API shows it. Each module of `GDPR_MODULES` serves it (signed, internal).
 */
export const gdprExport = (module: (typeof GDPR_MODULES)[number]) => ({
  module,
  path: `/${module}/internal/gdpr/export`,
  body: GdprBody,
  answer: z.object({ data: z.record(z.string(), z.array(z.unknown())) }),
});

/**
 * Removes what identifies the person in a module (contact details, devices, messages' text, saved payment methods)
 * while keeping every amount, date and count: `{changed: {<kind of record>: count}}`. Idempotent: asked again it
 * changes nothing more. Each module of `GDPR_MODULES` serves it (signed, internal).
 */
export const gdprAnonymize = (module: (typeof GDPR_MODULES)[number]) => ({
  module,
  path: `/${module}/internal/gdpr/anonymize`,
  body: GdprBody,
  answer: z.object({ changed: z.record(z.string(), z.number()) }),
});

