import { GDPR_MODULES, HttpError, callInternal, gdprAnonymize, gdprExport, type InternalClient } from '@church/common';

/**
 * What membership asks of every other module that keeps personal data, for one person of one church (GDPR export
 * and erasure), through the shared contracts `gdprExport` and `gdprAnonymize` each module serves.
 */

/** A module's failure named for what it stops (a 503 stays a 503 with its Retry-After). */
function named(what: string) {
  return (err: unknown): never => {
    if (err instanceof HttpError && err.statusCode === 502) throw new HttpError(502, [{ msg: `${what}: ${err.errors[0]?.msg ?? 'a module failed'}` }]);
    throw err;
  };
}

/** Every other module's records about the person (and kept per login of theirs: `userIds`), by module; any module that cannot answer fails the whole export. */
export async function exportFromModules(internal: InternalClient, churchId: string, personId: string, userIds: string[]): Promise<Record<string, Record<string, unknown[]>>> {
  const parts = await Promise.all(
    GDPR_MODULES.map((m) => callInternal(internal, gdprExport(m), { churchId, personId, userIds }).catch(named('The export needs every module’s records and one could not give them'))),
  );
  return Object.fromEntries(GDPR_MODULES.map((m, i) => [m, parts[i]!.data]));
}

/** Asks every other module to anonymize the person; any failure stops before membership changes anything. */
export async function anonymizeInModules(internal: InternalClient, churchId: string, personId: string, userIds: string[]): Promise<Record<string, Record<string, number>>> {
  const parts = await Promise.all(
    GDPR_MODULES.map((m) => callInternal(internal, gdprAnonymize(m), { churchId, personId, userIds }).catch(named('Anonymizing needs every module and one could not do its part; nothing was changed in membership, try again'))),
  );
  return Object.fromEntries(GDPR_MODULES.map((m, i) => [m, parts[i]!.changed]));
}
