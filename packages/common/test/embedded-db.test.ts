import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { PGlite } from '@electric-sql/pglite';
import { isDatabaseUnavailable, MAX_STATEMENT_PARAMS, openEmbeddedDatabase, rowsOf, type EmbeddedDatabase } from '../src';

/** A migrations folder in drizzle's layout: a journal and one SQL file per entry. */
function migrationsFolder(root: string, name: string, statements: string[]): string {
  const folder = path.join(root, name);
  mkdirSync(path.join(folder, 'meta'), { recursive: true });
  writeFileSync(path.join(folder, '0000_init.sql'), statements.join('\n--> statement-breakpoint\n'));
  writeFileSync(
    path.join(folder, 'meta', '_journal.json'),
    JSON.stringify({ version: '7', dialect: 'postgresql', entries: [{ idx: 0, version: '7', when: 1700000000000, tag: '0000_init', breakpoints: true }] }),
  );
  return folder;
}

describe('one embedded PGlite for the fleet, a schema per module', () => {
  let root: string;
  let embedded: EmbeddedDatabase;
  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'embedded-db-'));
    embedded = await openEmbeddedDatabase(path.join(root, 'db'));
  }, 120_000);
  afterAll(async () => {
    await embedded?.close();
    rmSync(root, { recursive: true, force: true });
  });

  // Both modules have a table `notes` and a foreign key written the way drizzle generates it (`"public"."…"`).
  const tables = [
    'CREATE EXTENSION IF NOT EXISTS pg_trgm',
    'CREATE TABLE "books" ("id" integer PRIMARY KEY, "title" text NOT NULL)',
    'CREATE TABLE "notes" ("id" serial PRIMARY KEY, "book_id" integer, "body" text NOT NULL)',
    'ALTER TABLE "notes" ADD CONSTRAINT "notes_book_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade',
    'CREATE INDEX "notes_body_trgm" ON "notes" USING gin ("body" gin_trgm_ops)',
  ];

  it('keeps each module in its own schema: same table names, separate rows, its own migrations journal', async () => {
    const one = embedded.forModule('alpha');
    const two = embedded.forModule('beta');
    await one.migrate(migrationsFolder(root, 'drizzle', tables));
    await two.migrate(migrationsFolder(root, 'drizzle', tables));
    await one.db.execute(sql`insert into books values (1, 'Psalms')`);
    await one.db.execute(sql`insert into notes (book_id, body) values (1, 'alpha note')`);
    await two.db.execute(sql`insert into books values (1, 'Proverbs')`);

    expect(rowsOf(await one.db.execute(sql`select title from books`))).toEqual([{ title: 'Psalms' }]);
    expect(rowsOf(await two.db.execute(sql`select title from books`))).toEqual([{ title: 'Proverbs' }]);
    expect(await two.rows('select count(*)::int as n from notes', [])).toEqual([{ n: 0 }]);
    // The foreign key points at the module's own table: deleting alpha's book cascades to alpha's note only.
    await one.db.execute(sql`delete from books where id = 1`);
    expect(await one.rows('select count(*)::int as n from notes', [])).toEqual([{ n: 0 }]);
    expect(await two.rows('select title from books', [])).toEqual([{ title: 'Proverbs' }]);
    expect(await one.rows(`select current_schema() as s`, [])).toEqual([{ s: 'alpha' }]);
    expect(await one.ready()).toBe(true);
    // A second migrate is a no-op: the journal in the module's schema says it ran.
    await one.migrate(path.join(root, 'drizzle'));
    expect(await one.rows('select count(*)::int as n from alpha.__drizzle_migrations', [])).toEqual([{ n: 1 }]);
  });

  it('never lets one module’s statement run on another’s path while a transaction is open', async () => {
    const one = embedded.forModule('alpha');
    const two = embedded.forModule('beta');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const inTx = one.db.transaction(async (tx) => {
      await tx.execute(sql`insert into books values (2, 'Job')`);
      await gate;
      await tx.execute(sql`insert into books values (3, 'Ruth')`);
    });
    // beta's read waits for alpha's transaction, then runs on beta's path.
    const read = two.rows<{ title: string }>('select title from books order by id', []);
    release();
    await inTx;
    expect(await read).toEqual([{ title: 'Proverbs' }]);
    expect(await one.rows('select id from books order by id', [])).toEqual([{ id: 2 }, { id: 3 }]);
  });

  it('rolls back a failed transaction of one module and goes on serving the others', async () => {
    const one = embedded.forModule('alpha');
    const two = embedded.forModule('beta');
    await expect(
      one.db.transaction(async (tx) => {
        await tx.execute(sql`insert into books values (4, 'Esther')`);
        await tx.execute(sql`insert into books values (4, 'Esther again')`);
      }),
    ).rejects.toThrow();
    expect(await one.rows('select count(*)::int as n from books where id = 4', [])).toEqual([{ n: 0 }]);
    expect(await two.rows('select count(*)::int as n from books', [])).toEqual([{ n: 1 }]);
  });

  it('refuses a statement over the engine’s limit of values before it reaches the engine, which then serves every module as before', async () => {
    const one = embedded.forModule('gamma');
    await one.db.execute(sql`create table if not exists kept (id int)`);
    await one.db.execute(sql`insert into kept values (1), (2)`);
    const values = Array.from({ length: MAX_STATEMENT_PARAMS + 1 }, (_, i) => i);
    const text = `select count(*) from kept where id in (${values.map((_, i) => `$${i + 1}`).join(',')})`;
    await expect(one.rows(text, values)).rejects.toMatchObject({ statusCode: 400 });
    await expect(one.db.transaction((tx) => tx.execute(sql`select count(*) from kept where id in (${sql.join(values.map((v) => sql`${v}`), sql`,`)})`))).rejects.toMatchObject({ cause: expect.objectContaining({ statusCode: 400 }) });
    // Without the guard PGlite answers every later query with no rows; here the rows are still there.
    expect(await one.rows('select count(*)::int as n from kept', [])).toEqual([{ n: 2 }]);
    expect(await embedded.forModule('alpha').rows('select title from books order by id', [])).toEqual(expect.any(Array));
  });
});

describe('an embedded engine that fails', () => {
  it('answers 503 for the statement that broke it, opens the folder again, and serves what was committed', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'embedded-fail-'));
    const failures: boolean[] = [];
    const embedded = await openEmbeddedDatabase(path.join(root, 'db'), { onFailure: (_err, fatal) => failures.push(fatal) });
    try {
      const mod = embedded.forModule('delta');
      await mod.db.execute(sql`create table things (id int)`);
      await mod.db.execute(sql`insert into things values (7)`);
      // What PGlite throws when its protocol read breaks (seen with too many parameters): not a SQLSTATE.
      const spy = jest.spyOn(PGlite.prototype, 'query').mockImplementationOnce(() => Promise.reject(new RangeError('Invalid array length')));
      const err = await mod.rows('select * from things', []).catch((e: unknown) => e);
      spy.mockRestore();
      expect(isDatabaseUnavailable(err)).toBe(true);
      expect(failures).toEqual([false]);
      // The next statement runs on the engine opened again, with what was committed before.
      expect(await mod.rows('select id from things', [])).toEqual([{ id: 7 }]);
      expect(embedded.restarts()).toBe(1);
      expect(mod.failure()).toBeUndefined();
    } finally {
      await embedded.close();
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);

  it('in memory, where nothing can be opened again, fails for good: every statement 503 and the handle says why', async () => {
    const failures: boolean[] = [];
    const embedded = await openEmbeddedDatabase(undefined, { onFailure: (_err, fatal) => failures.push(fatal) });
    try {
      const mod = embedded.forModule('epsilon');
      const spy = jest.spyOn(PGlite.prototype, 'query').mockImplementationOnce(() => Promise.reject(new RangeError('Invalid array length')));
      await expect(mod.rows('select 1', [])).rejects.toMatchObject({ code: '57P03' });
      spy.mockRestore();
      const later = await mod.rows('select 1 as x', []).catch((e: unknown) => e);
      expect(isDatabaseUnavailable(later)).toBe(true);
      expect(failures).toEqual([false, true]);
      expect(mod.failure()).toMatch(/could not be opened again/);
      expect(await mod.ready()).toBe(false);
    } finally {
      await embedded.close().catch(() => undefined);
    }
  }, 120_000);
});
