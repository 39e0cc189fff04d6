import { and, eq, inArray } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { LRUCache } from 'lru-cache';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ModuleName } from './config';
import type { DbOrTx } from './db';
import { validationFailed, type ErrorItem } from './errors';
import { Id, itemParam } from './schemas';
import { callInternal, type InternalContract } from './contracts/index';
import type { InternalClient } from './internal';
import type { TenantTable } from './crud';

/**
 * Every id a body carries names a record of the caller's church. A field that names a record is declared once,
 * beside the route or resource, with what it names: a table of the module's own (`campuses`) or a kind another
 * module owns (`REMOTE.groups`). One check answers both: one query per table, one signed call per kind (its
 * positive answers kept, since an id never changes church), and a 400 naming each offending field of each item.
 */

/** A kind of record another module owns, as a body names it. */
export interface RemoteKind {
  readonly module: ModuleName;
  readonly kind: string;
}

/** The kinds of record modules serve for each other's reference checks (`POST /<module>/internal/owned`). */
export const REMOTE = {
  people: { module: 'membership', kind: 'people' },
  groups: { module: 'membership', kind: 'groups' },
  households: { module: 'membership', kind: 'households' },
  forms: { module: 'membership', kind: 'forms' },
  formSubmissions: { module: 'membership', kind: 'formSubmissions' },
  sites: { module: 'membership', kind: 'sites' },
  campuses: { module: 'attendance', kind: 'campuses' },
  services: { module: 'attendance', kind: 'services' },
  serviceTimes: { module: 'attendance', kind: 'serviceTimes' },
  funds: { module: 'giving', kind: 'funds' },
  events: { module: 'content', kind: 'events' },
  streamingServices: { module: 'content', kind: 'streamingServices' },
  conversations: { module: 'messaging', kind: 'conversations' },
} as const satisfies Record<string, RemoteKind>;

/** What a reference field names: a table of this module, or a kind of another. */
export type Reference = TenantTable | RemoteKind;
/**
 * Reference fields by name; a field may hold one id or an array of ids. A field whose kind depends on the item
 * (`contentId` by `contentType`) names it per item, or `undefined` where the item's id is not a church record.
 */
export type References = Record<string, Reference | ((item: Record<string, unknown>) => Reference | undefined)>;

/** Of these ids, the ones that are (not removed) rows of the church in a table of the module. */
async function ownedLocal(db: DbOrTx, table: TenantTable, churchId: string, ids: string[]): Promise<Set<string>> {
  const conditions = [eq(table.churchId, churchId), inArray(table.id, ids)];
  if (table.removed) conditions.push(eq(table.removed, false));
  const rows = await db.select({ id: table.id }).from(table as PgTable).where(and(...conditions));
  return new Set(rows.map((row) => row.id as string));
}

const isRemote = (ref: Reference): ref is RemoteKind => typeof (ref as RemoteKind).kind === 'string' && typeof (ref as RemoteKind).module === 'string';

/** The signed route a module serves for the kinds it owns: of these ids, the ones that are records of the church. */
export const ownedContract = (module: ModuleName) =>
  ({
    module,
    path: `/${module}/internal/owned`,
    body: z.object({ churchId: Id, kind: z.string().max(40), ids: z.array(Id).max(1000) }),
    answer: z.object({ ids: z.array(z.string()) }),
  }) satisfies InternalContract;

/** Serves `ownedContract(module)` for the module's kinds (`{ groups: groups }`): an unknown kind is a 400. */
export function serveOwned(app: FastifyInstance, module: ModuleName, kinds: Record<string, TenantTable>): void {
  const contract = ownedContract(module);
  app.post(contract.path, { config: { access: 'internal' }, schema: { body: contract.body, response: { 200: contract.answer } } }, async (req) => {
    const { churchId, kind, ids } = req.body as z.output<typeof contract.body>;
    const table = Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
    if (!table) throw validationFailed([{ msg: `${kind} is not a kind ${module} owns`, param: 'kind', location: 'body' }]);
    return { ids: [...(await ownedLocal(app.db, table, churchId, [...new Set(ids)]))] };
  });
}

/** Ids known to be a church's records of a kind (`church kind id`): an id never moves to another church. */
const knownOwned = new LRUCache<string, true>({ max: 200_000 });

async function ownedRemote(internal: InternalClient, churchId: string, ref: RemoteKind, ids: string[]): Promise<Set<string>> {
  const key = (id: string) => `${churchId} ${ref.module}.${ref.kind} ${id}`;
  const owned = new Set(ids.filter((id) => knownOwned.has(key(id))));
  const ask = ids.filter((id) => !owned.has(id));
  for (let i = 0; i < ask.length; i += 1000) {
    const answer = await callInternal(internal, ownedContract(ref.module), { churchId, kind: ref.kind, ids: ask.slice(i, i + 1000) });
    for (const id of answer.ids) {
      owned.add(id);
      knownOwned.set(key(id), true);
    }
  }
  return owned;
}

const UUID = z.regexes.uuid();
/** The ids a field holds, lower-cased (PostgreSQL answers a uuid in lower case whatever case it was sent in). */
const idsIn = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v !== '').map((v) => v.toLowerCase());

/**
 * The fields of `items` that name no record of the church, each as an error naming the item's field (`param` of
 * item `i`, field `field`). A value that is no UUID at all is named too. Calls other modules: never inside a
 * transaction (the test harness refuses it).
 */
export async function foreignReferences(
  db: DbOrTx,
  internal: InternalClient,
  churchId: string,
  items: Array<Record<string, unknown>>,
  refs: References,
  param: (i: number, field: string) => string,
): Promise<ErrorItem[]> {
  const errors: ErrorItem[] = [];
  for (const [field, declared] of Object.entries(refs)) {
    // each item's ids of the field, read once, grouped by what they name (one group unless the kind depends on the
    // item); linear in the ids: a body of 40 teams of 30 people is 1,200 ids, 300 of them distinct
    const groups = new Map<Reference, { indexes: number[]; ids: Set<string> }>();
    const itemIds: string[][] = [];
    for (const [i, item] of items.entries()) {
      const ids = idsIn(item[field]);
      itemIds[i] = ids;
      if (!ids.length) continue;
      const ref = typeof declared === 'function' ? declared(item) : declared;
      if (!ref) continue;
      let group = groups.get(ref);
      if (!group) groups.set(ref, (group = { indexes: [], ids: new Set() }));
      group.indexes.push(i);
      for (const id of ids) group.ids.add(id);
    }
    for (const [ref, group] of groups) {
      const wellFormed = [...group.ids].filter((id) => UUID.test(id));
      const known = !wellFormed.length ? new Set<string>() : isRemote(ref) ? await ownedRemote(internal, churchId, ref, wellFormed) : await ownedLocal(db, ref, churchId, wellFormed);
      for (const i of group.indexes) {
        if (itemIds[i]!.some((id) => !known.has(id))) errors.push({ msg: `${field} is not a record of this church`, param: param(i, field), location: 'body' });
      }
    }
  }
  return errors;
}

/** `foreignReferences` as a 400 naming every offending field, for domain code that holds the module's deps. */
export async function assertReferences(
  deps: { db: DbOrTx; internal: InternalClient },
  churchId: string,
  items: Array<Record<string, unknown>>,
  refs: References,
  param: (i: number, field: string) => string = (i, field) => (items.length > 1 ? `[${i}].${field}` : field),
): Promise<void> {
  const errors = await foreignReferences(deps.db, deps.internal, churchId, items, refs, param);
  if (errors.length) throw validationFailed(errors);
}

/** `foreignReferences` for a request's items (one item or a batch), as a 400 naming every offending field. */
export async function checkReferences(req: FastifyRequest, items: Array<Record<string, unknown>>, refs: References | undefined, churchId = req.auth.churchId): Promise<void> {
  if (refs) await assertReferences(req.server.deps, churchId, items, refs, (i, field) => itemParam(req, i, field));
}
