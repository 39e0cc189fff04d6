import { randomUUID } from 'node:crypto';
import { and, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import { z } from 'zod';
import type { Access } from '@church/auth';
import type { Db, DbOrTx, Tx } from './db';
import { notFound, validationFailed, type ErrorItem } from './errors';
import { Empty, IdParams, batchOf, itemParam } from './schemas';
import { ALL_CHANGE_EVENTS, reportChanges } from './changes';
import { foreignReferences, type Reference, type References } from './references';

/** A church-owned table: a UUID `id` and a `churchId`, optionally a `removed` flag. */
export type TenantTable = PgTable & { id: PgColumn; churchId: PgColumn; removed?: PgColumn };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = Record<string, any>;

/** The church's rows (not removed), in the given order. */
export async function listRows<T extends TenantTable>(db: DbOrTx, table: T, churchId: string, opts: { where?: SQL; orderBy?: SQL | PgColumn | Array<SQL | PgColumn> } = {}): Promise<Array<T['$inferSelect']>> {
  const conditions = [eq(table.churchId, churchId)];
  if (table.removed) conditions.push(eq(table.removed, false));
  if (opts.where) conditions.push(opts.where);
  const query = db.select().from(table as PgTable).where(and(...conditions));
  const order = opts.orderBy === undefined ? [] : Array.isArray(opts.orderBy) ? opts.orderBy : [opts.orderBy];
  return order.length ? query.orderBy(...order) : query;
}

/** One row of the caller's church, or a 404 (another church's id is indistinguishable from none). */
export async function getRow<T extends TenantTable>(db: DbOrTx, table: T, churchId: string, id: string, what = 'Record'): Promise<T['$inferSelect']> {
  const conditions = [eq(table.churchId, churchId), eq(table.id, id)];
  if (table.removed) conditions.push(eq(table.removed, false));
  const [row] = await db.select().from(table as PgTable).where(and(...conditions)).limit(1);
  if (!row) throw notFound(what);
  return row;
}

/** Like `getRow` without the 404. */
export async function findRow<T extends TenantTable>(db: DbOrTx, table: T, churchId: string, id: string): Promise<T['$inferSelect'] | undefined> {
  const conditions = [eq(table.churchId, churchId), eq(table.id, id)];
  if (table.removed) conditions.push(eq(table.removed, false));
  const [row] = await db.select().from(table as PgTable).where(and(...conditions)).limit(1);
  return row;
}

/**
 * Batch save (spec convention 4): items without `id` are inserted with a new UUID and the caller's church;
 * items with `id` update only that church's row, and an id the church does not have fails the whole
 * batch with 404. One transaction; rows come back in input order.
 */
export async function saveRows<T extends TenantTable>(db: Db | Tx, table: T, churchId: string, items: Array<RowInput<T>>, what = 'Record'): Promise<Array<T['$inferSelect']>> {
  const run = async (tx: DbOrTx) => {
    const columns = getTableColumns(table as PgTable);
    const out: Row[] = [];
    for (const raw of items) {
      const values = pickColumns(raw, columns);
      delete values.churchId;
      if (raw.id) {
        delete values.id;
        if ('updatedAt' in columns) values.updatedAt = new Date();
        const where = and(eq(table.id, raw.id), eq(table.churchId, churchId));
        const [row] = Object.keys(values).length
          ? await tx.update(table as PgTable).set(values).where(where).returning()
          : await tx.select().from(table as PgTable).where(where).limit(1);
        if (!row) throw notFound(what);
        out.push(row);
      } else {
        const [row] = await tx.insert(table as PgTable).values({ ...values, id: randomUUID(), churchId }).returning();
        out.push(row!);
      }
    }
    return out;
  };
  return 'rollback' in db ? run(db) : (db as Db).transaction(run);
}

/** Deletes (or soft-deletes) one row of the caller's church and answers it as it was; 404 when it has none with that id. */
export async function deleteRow<T extends TenantTable>(db: DbOrTx, table: T, churchId: string, id: string, what = 'Record'): Promise<T['$inferSelect']> {
  const where = and(eq(table.id, id), eq(table.churchId, churchId));
  const rows = table.removed
    ? await db.update(table as PgTable).set({ removed: true }).where(where).returning()
    : await db.delete(table as PgTable).where(where).returning();
  if (!rows.length) throw notFound(what);
  return rows[0] as T['$inferSelect'];
}

/** Rows of the church with these ids (unknown or foreign ids are skipped). */
export async function rowsByIds<T extends TenantTable>(db: DbOrTx, table: T, churchId: string, ids: string[]): Promise<Array<T['$inferSelect']>> {
  if (!ids.length) return [];
  const conditions = [eq(table.churchId, churchId), inArray(table.id, ids)];
  if (table.removed) conditions.push(eq(table.removed, false));
  return db.select().from(table as PgTable).where(and(...conditions));
}

function pickColumns(raw: Row, columns: Record<string, unknown>): Row {
  const out: Row = {};
  for (const key of Object.keys(columns)) if (raw[key] !== undefined) out[key] = raw[key];
  return out;
}

export type CrudVerb = 'list' | 'get' | 'save' | 'delete';

/** What a save writes to a table: any of its columns (the church and, on insert, the id are the helper's). */
export type RowInput<T extends TenantTable> = Partial<T['$inferInsert']> & { id?: string };
type RowOf<T extends TenantTable> = T['$inferSelect'];

export interface ResourceOptions<T extends TenantTable, Item extends z.ZodType, Save extends z.ZodType> {
  /** the spec table's base path, for example `/membership/households` */
  path: string;
  /** what a record is called in a 404 (`Session not found`); `Record` by default */
  name?: string;
  table: T;
  /** one record as the API returns it */
  item: Item;
  /** one record as the API accepts it (`id` optional) */
  save: Save;
  /** access of the reads and of the writes, as the spec's Permission column reads */
  view: Access;
  edit: Access;
  /** the spec says only some of the standard routes exist */
  only?: CrudVerb[];
  orderBy?: SQL | PgColumn | Array<SQL | PgColumn>;
  /** maps an accepted record to column values (default: as is) */
  toRow?: (input: z.output<Save>, req: FastifyRequest) => RowInput<T> | Promise<RowInput<T>>;
  /** maps a row to the API's record (default: as is; the item schema filters what leaves) */
  toItem?: (row: RowOf<T>) => unknown;
  /**
   * reads of their own for the list and the get (a join, such as services with their campus); the get's
   * answers a 404 when it finds nothing. Filters and scope are then the reader's to apply.
   */
  readers?: {
    list?: (req: FastifyRequest) => Promise<unknown[]>;
    get?: (req: FastifyRequest, id: string) => Promise<unknown | undefined>;
  };
  /**
   * narrows the rows a caller may read (`list`, `get`) or change (`save` of an existing row, `delete`) to those
   * matching a condition (a group leader's groups, the caller's own records); `undefined` for callers who may
   * act on the whole church. Another church's row stays a 404; a row of the church outside the scope is
   * refused with `refuse` (the spec answers 401 there, as for a missing permission), or a 404 by default.
   * What a new or changed row may hold is `toRow`'s to check.
   */
  scope?: { where: (req: FastifyRequest, verb: CrudVerb) => SQL | undefined; refuse?: () => Error };
  /** runs inside the save's transaction after the rows are written */
  afterSave?: (rows: Array<RowOf<T>>, req: FastifyRequest, tx: Tx) => Promise<void>;
  /**
   * fields that name another record of the caller's church (`{ campusId: campuses }`, `{ groupId: REMOTE.groups }`):
   * on save, an id the church does not have is a 400 naming the field of the item (`[2].campusId`), checked before
   * the save's transaction opens (references.ts)
   */
  references?: Partial<Record<keyof RowOf<T> & string, Reference>>;
  /** fields a new record (no `id`) must carry: 400 "`name` is required" naming the item's field */
  requiredOnCreate?: Array<keyof RowOf<T> & string>;
  /** query-string filters of the list route: `?campusId=` → rows whose column equals it */
  filters?: Record<string, PgColumn>;
  /** runs after the save's transaction has committed (enqueue jobs here) */
  afterCommit?: (rows: Array<RowOf<T>>, req: FastifyRequest) => Promise<void>;
  /** runs inside the delete's transaction before the row goes (its dependents, a refusal) */
  beforeDelete?: (row: RowOf<T>, req: FastifyRequest, tx: Tx) => Promise<void>;
  /** runs after the delete has committed */
  afterDelete?: (row: RowOf<T>, req: FastifyRequest) => Promise<void>;
  /**
   * how saves and deletes are reported to the church's audit log and webhooks (`reportChanges`): the kind of
   * record (default: the path's last segment) and, when its changes are webhook events, their prefix
   * (`household` → `household.created`, `.updated`, `.destroyed`)
   */
  changes?: { entityType?: string; event?: string };
}

/**
 * The batch's references and required fields, all checked before anything is written; every problem of every
 * item is reported at once, each naming its item's field. References to another module's records call it: run
 * this before a transaction opens when `references` names a `REMOTE` kind.
 */
export async function checkBatch(
  db: DbOrTx,
  req: FastifyRequest,
  items: Row[],
  opts: { references?: References; requiredOnCreate?: string[] },
): Promise<void> {
  const errors: ErrorItem[] = [];
  for (const [i, item] of items.entries()) {
    if (item.id) continue;
    for (const field of opts.requiredOnCreate ?? []) {
      if (item[field] === undefined || item[field] === null || item[field] === '') errors.push({ msg: `${field} is required`, param: itemParam(req, i, field), location: 'body' });
    }
  }
  errors.push(...(await foreignReferences(db, req.server.deps.internal, req.auth.churchId, items, opts.references ?? {}, (i, field) => itemParam(req, i, field))));
  if (errors.length) throw validationFailed(errors);
}

/**
 * The spec's standard CRUD set for a table: `GET /`, `GET /:id`, `POST /` (batch save), `DELETE /:id`,
 * church-scoped, with the view and edit access applied. Anything beyond it is plain routes in the same file.
 */
export function crud<T extends TenantTable, Item extends z.ZodType, Save extends z.ZodType>(app: FastifyInstance, opts: ResourceOptions<T, Item, Save>): void {
  const verbs = new Set(opts.only ?? ['list', 'get', 'save', 'delete']);
  const toItem = opts.toItem ?? ((row: RowOf<T>) => row);
  const entityType = opts.changes?.entityType ?? opts.path.split('/').filter(Boolean).pop()!;
  const eventOf = (action: string) => {
    const event = opts.changes?.event && `${opts.changes.event}.${action}`;
    return event && ALL_CHANGE_EVENTS.includes(event) ? event : undefined;
  };
  const report = (req: FastifyRequest, tx: Tx, pairs: Array<{ before?: RowOf<T>; after?: RowOf<T> }>) =>
    reportChanges(
      app.deps,
      pairs.map(({ before, after }) => {
        const action = !before ? 'created' : !after || (after as Row).removed ? 'destroyed' : 'updated';
        const row = (after ?? before) as Row;
        return { churchId: req.auth.churchId, entityType, entityId: String(row.id), action, event: eventOf(action), before: before as Row, after: after && action !== 'destroyed' ? (after as Row) : undefined, data: after && action !== 'destroyed' ? toItem(after) : { id: row.id } };
      }),
      { req, tx },
    );
  const list = z.array(opts.item);
  const idOf = (req: FastifyRequest) => (req.params as { id: string }).id;
  const missing = () => notFound(opts.name ?? 'Record');
  /**
   * Of these ids of the caller's church, the ones outside the caller's scope for `verb` are refused (one query
   * that also tells another church's id, a 404, from a refusal); answers the rows.
   */
  const inScope = async (db: DbOrTx, req: FastifyRequest, verb: CrudVerb, ids: string[]): Promise<Array<RowOf<T>>> => {
    const where = opts.scope?.where(req, verb);
    const rows = await db
      .select({ row: opts.table as PgTable, inside: where ? sql<boolean>`coalesce(${where}, false)` : sql<boolean>`true` })
      .from(opts.table as PgTable)
      .where(and(eq(opts.table.churchId, req.auth.churchId), inArray(opts.table.id, ids), opts.table.removed ? eq(opts.table.removed, false) : undefined));
    if (rows.length < ids.length) throw missing();
    if (rows.some((r) => !r.inside)) throw (opts.scope?.refuse ?? missing)();
    return rows.map((r) => r.row as RowOf<T>);
  };
  if (verbs.has('list')) {
    const filters = Object.entries(opts.filters ?? {});
    const querystring = filters.length ? z.object(Object.fromEntries(filters.map(([name]) => [name, z.string().max(200).optional()]))) : undefined;
    app.get(opts.path, { config: { access: opts.view }, schema: { ...(querystring ? { querystring } : {}), response: { 200: list } } as FastifySchema }, async (req) => {
      if (opts.readers?.list) return (await opts.readers.list(req)) as never;
      const query = (req.query ?? {}) as Record<string, string | undefined>;
      const conditions = filters.filter(([name]) => query[name] !== undefined).map(([name, column]) => eq(column, query[name]!));
      const where = and(...conditions, opts.scope?.where(req, 'list'));
      return (await listRows(app.db, opts.table, req.auth.churchId, { orderBy: opts.orderBy, where })).map(toItem) as never;
    });
  }
  if (verbs.has('get')) {
    app.get(`${opts.path}/:id`, { config: { access: opts.view }, schema: { params: IdParams, response: { 200: opts.item } } as FastifySchema }, async (req) => {
      if (!opts.readers?.get) {
        const row = opts.scope ? (await inScope(app.db, req, 'get', [idOf(req)]))[0]! : await getRow(app.db, opts.table, req.auth.churchId, idOf(req), opts.name);
        return toItem(row) as never;
      }
      const found = await opts.readers.get(req, idOf(req));
      if (found === undefined || found === null) throw missing();
      return found as never;
    });
  }
  if (verbs.has('save')) {
    app.post(opts.path, { config: { access: opts.edit }, schema: { body: batchOf(opts.save), response: { 200: list } } }, async (req) => {
      const items = req.body as Array<z.output<Save>>;
      const rows = await Promise.all(items.map((item) => (opts.toRow ? opts.toRow(item, req) : (item as RowInput<T>))));
      await checkBatch(app.db, req, rows, opts as { references?: References; requiredOnCreate?: string[] });
      const saved = await app.db.transaction(async (tx) => {
        // An update of a row outside the caller's scope is refused before anything is written.
        const updated = [...new Set(rows.map((r) => r.id).filter((id): id is string => typeof id === 'string'))];
        const before = opts.scope && updated.length ? await inScope(tx, req, 'save', updated) : await rowsByIds(tx, opts.table, req.auth.churchId, updated);
        const written = await saveRows(tx, opts.table, req.auth.churchId, rows, opts.name);
        if (opts.afterSave) await opts.afterSave(written, req, tx);
        const was = new Map(before.map((row) => [(row as Row).id as string, row]));
        await report(req, tx, written.map((after) => ({ before: was.get((after as Row).id), after })));
        return written;
      });
      if (opts.afterCommit) await opts.afterCommit(saved, req);
      return saved.map(toItem) as never;
    });
  }
  if (verbs.has('delete')) {
    app.delete(`${opts.path}/:id`, { config: { access: opts.edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
      const id = idOf(req);
      const removed = await app.db.transaction(async (tx) => {
        const [row] = opts.scope || opts.beforeDelete ? await inScope(tx, req, 'delete', [id]) : [undefined];
        if (opts.beforeDelete) await opts.beforeDelete(row!, req, tx);
        const gone = await deleteRow(tx, opts.table, req.auth.churchId, id, opts.name);
        await report(req, tx, [{ before: row ?? gone }]);
        return row ?? gone;
      });
      if (opts.afterDelete) await opts.afterDelete(removed!, req);
      return {};
    });
  }
}
