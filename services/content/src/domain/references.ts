import { assertReferences, type References } from '@church/common';
import type { ContentDeps } from '../deps';

/**
 * The shared reference check (issue 41) for items nested in a body (a tree's sections, a registration's members):
 * every field of `refs` names a record of `churchId`, else a 400 naming each offending field as
 * `<prefix>[i].<field>` (or as `prefix` names it). Calls other modules for their kinds: never inside a transaction.
 */
export async function checkNested(
  deps: Pick<ContentDeps, 'db' | 'internal'>,
  churchId: string,
  items: ReadonlyArray<Record<string, unknown>> | null | undefined,
  refs: References,
  prefix: string | ((i: number, field: string) => string),
): Promise<void> {
  if (!items?.length) return;
  await assertReferences(deps, churchId, [...items], refs, typeof prefix === 'function' ? prefix : (i, field) => `${prefix}[${i}].${field}`);
}
