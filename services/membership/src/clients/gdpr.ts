import { z } from 'zod';
import { HttpError, callInternal, type InternalClient, type ModuleName } from '@church/common';

/**
 * What membership asks of every other module that keeps personal data, for one person of one church (GDPR export
 * and erasure). Each module serves both routes (signed, `access: 'internal'`); these contracts belong in
 * `packages/common/src/contracts.ts` (asked of the lead) and live here, behind these two functions, until then.
 *
 * - `POST /<module>/internal/gdpr/export` `{churchId, personId}` → `{data: {<kind of record>: [rows]}}`: every row
 *   of the module about the person (donations, visits, notifications...), as the module's own API shows them.
 * - `POST /<module>/internal/gdpr/anonymize` `{churchId, personId}` → `{changed: {<kind of record>: count}}`: removes
 *   what identifies the person in the module (contact details, devices, messages' text, saved payment methods)
 *   while keeping every amount, date and count (donations keep their amounts and the now-anonymous person; visits
 *   stay counted). Idempotent: asked again, it changes nothing more.
 */
export const GDPR_MODULES = ['attendance', 'giving', 'messaging', 'content', 'doing'] as const satisfies readonly ModuleName[];

const Body = z.object({ churchId: z.uuid(), personId: z.uuid() });
export const gdprExport = (module: ModuleName) => ({
  module,
  path: `/${module}/internal/gdpr/export`,
  body: Body,
  answer: z.object({ data: z.record(z.string(), z.array(z.unknown())) }),
});
export const gdprAnonymize = (module: ModuleName) => ({
  module,
  path: `/${module}/internal/gdpr/anonymize`,
  body: Body,
  answer: z.object({ changed: z.record(z.string(), z.number()) }),
});

/** A module's failure named for what it stops (a 503 stays a 503 with its Retry-After). */
function named(what: string) {
  return (err: unknown): never => {
    if (err instanceof HttpError && err.statusCode === 502) throw new HttpError(502, [{ msg: `${what}: ${err.errors[0]?.msg ?? 'a module failed'}` }]);
    throw err;
  };
}

/** Every other module's records about the person, by module; any module that cannot answer fails the whole export. */
export async function exportFromModules(internal: InternalClient, churchId: string, personId: string): Promise<Record<string, Record<string, unknown[]>>> {
  const parts = await Promise.all(
    GDPR_MODULES.map((m) => callInternal(internal, gdprExport(m), { churchId, personId }).catch(named('The export needs every module’s records and one could not give them'))),
  );
  return Object.fromEntries(GDPR_MODULES.map((m, i) => [m, parts[i]!.data]));
}

/** Asks every other module to anonymize the person; any failure stops before membership changes anything. */
export async function anonymizeInModules(internal: InternalClient, churchId: string, personId: string): Promise<Record<string, Record<string, number>>> {
  const parts = await Promise.all(
    GDPR_MODULES.map((m) => callInternal(internal, gdprAnonymize(m), { churchId, personId }).catch(named('Anonymizing needs every module and one could not do its part; nothing was changed in membership, try again'))),
  );
  return Object.fromEntries(GDPR_MODULES.map((m, i) => [m, parts[i]!.changed]));
}
