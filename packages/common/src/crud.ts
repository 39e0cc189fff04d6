import { randomUUID } from 'node:crypto';
import { and, eq, getTableColumns, inArray, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import { z } from 'zod';
import type { Access } from '@church/auth';
import type { Db, DbOrTx, Tx } from './db';
import { notFound, validationFailed } from './errors';
import { IdParams, batchOf, itemParam } from './schemas';

/** A church-owned table: a UUID `id` and a `churchId`, optionally a `removed` flag. */
export type TenantTable = PgTable & { id: PgColumn; churchId: PgColumn; removed?: PgColumn };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = Record<string, any>;

/** The church's rows (not removed), in the given order. */
export async function listRows(db: DbOrTx, table: TenantTable, churchId: string, opts: { where?: SQL; orderBy?: SQL | PgColumn | Array<SQL | PgColumn> } = {}): Promise<Row[]> {
  const conditions = [eq(table.churchId, churchId)];
  if (table.removed) conditions.push(eq(table.removed, false));
  if (opts.where) conditions.push(opts.where);
  const query = db.select().from(table as PgTable).where(and(...conditions));
  const order = opts.orderBy === undefined ? [] : Array.isArray(opts.orderBy) ? opts.orderBy : [opts.orderBy];
  return (order.length ? query.orderBy(...order) : query) as Promise<Row[]>;
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
export async function saveRows<T extends TenantTable>(db: Db | Tx, table: T, churchId: string, items: Row[], what = 'Record'): Promise<Array<T['$inferSelect']>> {
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

/** Deletes (or soft-deletes) one row of the caller's church; 404 when it has none with that id. */
export async function deleteRow(db: DbOrTx, table: TenantTable, churchId: string, id: string, what = 'Record'): Promise<void> {
  const where = and(eq(table.id, id), eq(table.churchId, churchId));
  const rows = table.removed
    ? await db.update(table as PgTable).set({ removed: true }).where(where).returning({ id: table.id })
    : await db.delete(table as PgTable).where(where).returning({ id: table.id });
  if (!rows.length) throw notFound(what);
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

export interface ResourceOptions<Item extends z.ZodType, Save extends z.ZodType> {
  /** the spec table's base path, for example `/membership/households` */
  path: string;
  /** what a record is called in a 404 (`Session not found`); `Record` by default */
  name?: string;
  table: TenantTable;
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
  toRow?: (input: z.output<Save>, req: FastifyRequest) => Row | Promise<Row>;
  /** maps a row to the API's record (default: as is; the item schema filters what leaves) */
  toItem?: (row: Row) => unknown;
  /** runs inside the save's transaction after the rows are written */
  afterSave?: (rows: Row[], req: FastifyRequest, tx: Tx) => Promise<void>;
  /**
   * fields that name another record of the caller's church (`{ campusId: campuses }`): on save, an id the church
   * does not have is a 400 naming the field of the item (`[2].campusId`), checked in one query per table
   */
  references?: Record<string, TenantTable>;
  /** fields a new record (no `id`) must carry: 400 "`name` is required" naming the item's field */
  requiredOnCreate?: string[];
  /** query-string filters of the list route: `?campusId=` → rows whose column equals it */
  filters?: Record<string, PgColumn>;
  /** runs after the save's transaction has committed (enqueue jobs here) */
  afterCommit?: (rows: Row[], req: FastifyRequest) => Promise<void>;
}

/**
 * The batch's references and required fields, all checked before anything is written; every problem of every
 * item is reported at once, each naming its item's field.
 */
export async function checkBatch(
  db: DbOrTx,
  req: FastifyRequest,
  items: Row[],
  opts: { references?: Record<string, TenantTable>; requiredOnCreate?: string[] },
): Promise<void> {
  const errors: Array<{ msg: string; param: string; location: string }> = [];
  for (const [i, item] of items.entries()) {
    if (item.id) continue;
    for (const field of opts.requiredOnCreate ?? []) {
      if (item[field] === undefined || item[field] === null || item[field] === '') errors.push({ msg: `${field} is required`, param: itemParam(req, i, field), location: 'body' });
    }
  }
  for (const [field, table] of Object.entries(opts.references ?? {})) {
    const ids = [...new Set(items.map((item) => item[field]).filter((v): v is string => typeof v === 'string'))];
    if (!ids.length) continue;
    const known = new Set((await rowsByIds(db, table, req.auth.churchId, ids)).map((row) => row.id as string));
    for (const [i, item] of items.entries()) {
      if (typeof item[field] === 'string' && !known.has(item[field])) errors.push({ msg: `${field} is not a record of this church`, param: itemParam(req, i, field), location: 'body' });
    }
  }
  if (errors.length) throw validationFailed(errors);
}

/**
 * The spec's standard CRUD set for a table: `GET /`, `GET /:id`, `POST /` (batch save), `DELETE /:id`,
 * church-scoped, with the view and edit access applied. Anything beyond it is plain routes in the same file.
 */
export function crud<Item extends z.ZodType, Save extends z.ZodType>(app: FastifyInstance, opts: ResourceOptions<Item, Save>): void {
  const verbs = new Set(opts.only ?? ['list', 'get', 'save', 'delete']);
  const toItem = opts.toItem ?? ((row: Row) => row);
  const list = z.array(opts.item);
  if (verbs.has('list')) {
    const filters = Object.entries(opts.filters ?? {});
    const querystring = filters.length ? z.object(Object.fromEntries(filters.map(([name]) => [name, z.string().max(200).optional()]))) : undefined;
    app.get(opts.path, { config: { access: opts.view }, schema: { ...(querystring ? { querystring } : {}), response: { 200: list } } as FastifySchema }, async (req) => {
      const query = (req.query ?? {}) as Record<string, string | undefined>;
      const conditions = filters.filter(([name]) => query[name] !== undefined).map(([name, column]) => eq(column, query[name]!));
      const where = conditions.length ? and(...conditions) : undefined;
      return (await listRows(app.db, opts.table, req.auth.churchId, { orderBy: opts.orderBy, where })).map(toItem) as never;
    });
  }
  if (verbs.has('get')) {
    app.get(`${opts.path}/:id`, { config: { access: opts.view }, schema: { params: IdParams, response: { 200: opts.item } } as FastifySchema }, async (req) =>
      toItem(await getRow(app.db, opts.table, req.auth.churchId, (req.params as { id: string }).id, opts.name)) as never,
    );
  }
  if (verbs.has('save')) {
    app.post(opts.path, { config: { access: opts.edit }, schema: { body: batchOf(opts.save), response: { 200: list } } }, async (req) => {
      const items = req.body as Array<z.output<Save>>;
      const rows = await Promise.all(items.map((item) => (opts.toRow ? opts.toRow(item, req) : (item as Row))));
      const saved = await app.db.transaction(async (tx) => {
        await checkBatch(tx, req, rows, opts);
        const written = await saveRows(tx, opts.table, req.auth.churchId, rows, opts.name);
        if (opts.afterSave) await opts.afterSave(written, req, tx);
        return written;
      });
      if (opts.afterCommit) await opts.afterCommit(saved, req);
      return saved.map(toItem) as never;
    });
  }
  if (verbs.has('delete')) {
    app.delete(`${opts.path}/:id`, { config: { access: opts.edit }, schema: { params: IdParams } }, async (req) => {
      await deleteRow(app.db, opts.table, req.auth.churchId, (req.params as { id: string }).id, opts.name);
      return {};
    });
  }
}
