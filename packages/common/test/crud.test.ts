import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { pgTable, text } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { churchId, createService, crud, id, removed, type Database } from '../src';
import { call, expectGuarded, testConfig, testDatabase, tokenFor } from '../src/testing';

// A throwaway table created by hand, so the helper is tested apart from any module's schema.
const notes = pgTable('crud_test_notes', { id: id(), churchId: churchId(), title: text('title').notNull(), body: text('body'), removed: removed() });
const Note = z.object({ id: z.string(), title: z.string(), body: z.string().nullable() });
const NoteSave = z.object({ id: z.uuid().optional(), title: z.string().min(1), body: z.string().nullish() });

describe('crud()', () => {
  let app: FastifyInstance;
  let database: Database;
  const church = randomUUID();
  const other = randomUUID();
  const editor = tokenFor({ churchId: church, permissions: ['People.Edit'] });
  const reader = tokenFor({ churchId: church });
  const otherEditor = tokenFor({ churchId: other, permissions: ['People.Edit'] });

  beforeAll(async () => {
    const migrations = path.join(__dirname, '../../../services/giving/drizzle');
    database = await testDatabase('giving', migrations);
    await database.db.execute(
      sql`create table crud_test_notes (id uuid primary key, church_id uuid not null, title text not null, body text, removed boolean not null default false)`,
    );
    app = await createService(
      {
        module: 'giving',
        migrationsFolder: migrations,
        routes: [async (a) => crud(a, { path: '/giving/notes', table: notes, item: Note, save: NoteSave, view: anyUser, edit: requires('People.Edit'), orderBy: notes.title })],
      },
      testConfig(),
      { overrides: { database }, logger: false },
    );
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('guards every route', async () => {
    for (const route of [
      { method: 'GET' as const, url: '/giving/notes' },
      { method: 'POST' as const, url: '/giving/notes', body: { title: 'x' }, permission: 'People.Edit' },
      { method: 'DELETE' as const, url: `/giving/notes/${randomUUID()}`, permission: 'People.Edit' },
    ])
      await expectGuarded(app, route, church);
  });

  it('inserts a single object and answers an array; mixes inserts and updates in one batch', async () => {
    const first = await call(app, 'POST', '/giving/notes', { token: editor, body: { title: 'Alpha' } });
    expect(first.statusCode).toBe(200);
    const [alpha] = first.json();
    expect(alpha).toEqual({ id: expect.any(String), title: 'Alpha', body: null });
    const batch = await call(app, 'POST', '/giving/notes', { token: editor, body: [{ title: 'Beta', body: 'b' }, { id: alpha.id, title: 'Alpha 2' }] });
    expect(batch.json().map((n: { title: string }) => n.title)).toEqual(['Beta', 'Alpha 2']);
    const list = await call(app, 'GET', '/giving/notes', { token: reader });
    expect(list.json().map((n: { title: string }) => n.title)).toEqual(['Alpha 2', 'Beta']);
  });

  it('keeps churches apart: reads, updates and deletes of another church’s id answer 404 and change nothing', async () => {
    const [mine] = (await call(app, 'POST', '/giving/notes', { token: editor, body: { title: 'Mine' } })).json();
    expect((await call(app, 'GET', `/giving/notes/${mine.id}`, { token: otherEditor })).statusCode).toBe(404);
    expect((await call(app, 'GET', '/giving/notes', { token: otherEditor })).json()).toEqual([]);
    const update = await call(app, 'POST', '/giving/notes', { token: otherEditor, body: [{ title: 'New' }, { id: mine.id, title: 'Stolen' }] });
    expect(update.statusCode).toBe(404);
    expect((await call(app, 'DELETE', `/giving/notes/${mine.id}`, { token: otherEditor })).statusCode).toBe(404);
    const rows = await database.db.select().from(notes).where(eq(notes.title, 'Stolen'));
    expect(rows).toEqual([]);
    // The failed batch wrote nothing at all, not even its insert.
    expect(await database.db.select().from(notes).where(eq(notes.churchId, other))).toEqual([]);
  });

  it('validates every item and names the offending one', async () => {
    const res = await call(app, 'POST', '/giving/notes', { token: editor, body: [{ title: 'ok' }, { title: '' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: '[1].title', location: 'body' });
  });

  it('soft-deletes: the row stays, reads no longer see it', async () => {
    const [gone] = (await call(app, 'POST', '/giving/notes', { token: editor, body: { title: 'Gone' } })).json();
    expect((await call(app, 'DELETE', `/giving/notes/${gone.id}`, { token: editor })).statusCode).toBe(200);
    expect((await call(app, 'GET', `/giving/notes/${gone.id}`, { token: reader })).statusCode).toBe(404);
    const [row] = await database.db.select().from(notes).where(eq(notes.id, gone.id));
    expect(row!.removed).toBe(true);
  });
});

describe('crud() references, required fields, filters and after-commit', () => {
  const owners = pgTable('crud_ref_owners', { id: id(), churchId: churchId(), name: text('name').notNull() });
  const items = pgTable('crud_ref_items', { id: id(), churchId: churchId(), ownerId: text('owner_id'), name: text('name'), kind: text('kind') });
  const Item = z.object({ id: z.string(), ownerId: z.string().nullable(), name: z.string().nullable(), kind: z.string().nullable() });
  const ItemSave = z.object({ id: z.uuid().optional(), ownerId: z.uuid().nullish(), name: z.string().nullish(), kind: z.string().nullish() });
  let app: FastifyInstance;
  let database: Database;
  const church = randomUUID();
  const token = tokenFor({ churchId: church });
  const committed: string[] = [];
  let mine = '';
  let theirs = '';

  beforeAll(async () => {
    const migrations = path.join(__dirname, '../../../services/giving/drizzle');
    database = await testDatabase('giving', migrations);
    await database.db.execute(sql`create table crud_ref_owners (id uuid primary key, church_id uuid not null, name text not null)`);
    await database.db.execute(sql`create table crud_ref_items (id uuid primary key, church_id uuid not null, owner_id text, name text, kind text)`);
    mine = randomUUID();
    theirs = randomUUID();
    await database.db.insert(owners).values([{ id: mine, churchId: church, name: 'mine' }, { id: theirs, churchId: randomUUID(), name: 'theirs' }]);
    app = await createService(
      {
        module: 'giving',
        migrationsFolder: migrations,
        routes: [
          async (a) =>
            crud(a, {
              path: '/giving/items',
              table: items,
              item: Item,
              save: ItemSave,
              view: anyUser,
              edit: anyUser,
              references: { ownerId: owners },
              requiredOnCreate: ['name'],
              filters: { kind: items.kind },
              afterCommit: async (rows) => void committed.push(...rows.map((r) => r.id as string)),
            }),
        ],
      },
      testConfig(),
      { overrides: { database }, logger: false },
    );
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("refuses another church's reference and a missing required field, naming each item's field, writing nothing", async () => {
    const res = await call(app, 'POST', '/giving/items', { token, body: [{ name: 'ok', ownerId: mine }, { name: 'x', ownerId: theirs }, { kind: 'a' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { msg: 'name is required', param: '[2].name', location: 'body' },
      { msg: 'ownerId is not a record of this church', param: '[1].ownerId', location: 'body' },
    ]);
    expect(await database.db.select().from(items)).toHaveLength(0);
    expect(committed).toHaveLength(0);
  });

  it('saves valid references, filters the list by the query string, and runs the after-commit hook', async () => {
    const res = await call(app, 'POST', '/giving/items', { token, body: [{ name: 'a', ownerId: mine, kind: 'x' }, { name: 'b', kind: 'y' }] });
    expect(res.statusCode).toBe(200);
    expect(committed).toEqual(res.json().map((r: { id: string }) => r.id));
    const filtered = await call(app, 'GET', '/giving/items?kind=y', { token });
    expect(filtered.json().map((r: { name: string }) => r.name)).toEqual(['b']);
    expect((await call(app, 'GET', '/giving/items', { token })).json()).toHaveLength(2);
  });
});
