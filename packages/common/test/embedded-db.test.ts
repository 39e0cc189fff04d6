import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { openEmbeddedDatabase, rowsOf, type EmbeddedDatabase } from '../src';

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
});
