import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { pgTable, text } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission, requires } from '@church/auth';
import { badRequest, churchId, createService, crud, id, removed, unauthorized, type Database } from '../src';
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

  it('reports each save and delete to the audit log, field by field, in the change’s transaction', async () => {
    const user = randomUUID();
    const token = tokenFor({ churchId: church, userId: user, permissions: ['People.Edit'] });
    await app.deps.queue.drain();
    const reported = () => app.deps.queue.handedOff.filter((j) => j.name === 'membership.changes').flatMap((j) => (j.data as { records: Array<Record<string, unknown>> }).records);
    const start = reported().length;
    const [made] = (await call(app, 'POST', '/giving/notes', { token, body: { title: 'Draft' } })).json();
    await call(app, 'POST', '/giving/notes', { token, body: { id: made.id, title: 'Final', body: 'text' } });
    await call(app, 'POST', '/giving/notes', { token, body: { id: made.id, title: 'Final', body: 'text' } }); // no change: no record
    await call(app, 'DELETE', `/giving/notes/${made.id}`, { token });
    // a save that fails writes nothing and reports nothing
    expect((await call(app, 'POST', '/giving/notes', { token, body: [{ title: 'Lost' }, { id: randomUUID(), title: 'x' }] })).statusCode).toBe(404);
    await app.deps.queue.drain();
    // the outbox hands jobs on in no set order: the three writes, by what they did
    const order = ['created', 'updated', 'destroyed'];
    const mine = reported()
      .slice(start)
      .sort((a, b) => order.indexOf(String(a.action)) - order.indexOf(String(b.action)));
    expect(mine.map((r) => [r.action, r.entityType, r.entityId, r.userId, r.module])).toEqual([
      ['created', 'notes', made.id, user, 'giving'],
      ['updated', 'notes', made.id, user, 'giving'],
      ['destroyed', 'notes', made.id, user, 'giving'],
    ]);
    expect(mine[1]!.changes).toEqual({ title: { before: 'Draft', after: 'Final' }, body: { before: null, after: 'text' } });
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

describe('crud() scope, readers and delete hooks', () => {
  const tasks = pgTable('crud_scope_tasks', { id: id(), churchId: churchId(), ownerId: text('owner_id').notNull(), title: text('title').notNull() });
  const Task = z.object({ id: z.string(), ownerId: z.string(), title: z.string() });
  const TaskSave = z.object({ id: z.uuid().optional(), ownerId: z.string().optional(), title: z.string().min(1) });
  let app: FastifyInstance;
  let database: Database;
  const church = randomUUID();
  // Staff (People.Edit) act on every task; anyone else on the tasks they own (their person id).
  const staff = tokenFor({ churchId: church, personId: randomUUID(), permissions: ['People.Edit'] });
  const alice = randomUUID();
  const bob = randomUUID();
  const asAlice = tokenFor({ churchId: church, personId: alice });
  const asBob = tokenFor({ churchId: church, personId: bob });
  const outsider = tokenFor({ churchId: randomUUID(), personId: alice, permissions: ['People.Edit'] });
  const hooks: string[] = [];
  let alicesTask = '';

  beforeAll(async () => {
    const migrations = path.join(__dirname, '../../../services/giving/drizzle');
    database = await testDatabase('giving', migrations);
    await database.db.execute(sql`create table crud_scope_tasks (id uuid primary key, church_id uuid not null, owner_id text not null, title text not null)`);
    alicesTask = randomUUID();
    await database.db.insert(tasks).values([
      { id: alicesTask, churchId: church, ownerId: alice, title: 'Alice’s' },
      { id: randomUUID(), churchId: church, ownerId: bob, title: 'Bob’s' },
    ]);
    app = await createService(
      {
        module: 'giving',
        migrationsFolder: migrations,
        routes: [
          async (a) =>
            crud(a, {
              path: '/giving/tasks',
              name: 'Task',
              table: tasks,
              item: Task,
              save: TaskSave,
              view: anyUser,
              edit: anyUser,
              orderBy: tasks.title,
              scope: {
                where: (req) => (hasPermission(req.auth, 'People.Edit') ? undefined : eq(tasks.ownerId, req.auth.personId ?? '')),
                refuse: () => unauthorized('Only your own tasks'),
              },
              toRow: (item, req) => ({ ...item, ownerId: item.ownerId ?? req.auth.personId ?? '' }),
              beforeDelete: async (row, _req, tx) => {
                hooks.push(`before ${row.title}`);
                if (row.title === 'Locked') throw badRequest('id', 'Locked tasks stay');
                await tx.execute(sql`select 1`);
              },
              afterDelete: async (row) => void hooks.push(`after ${row.title}`),
            }),
          async (a) =>
            crud(a, {
              path: '/giving/titles',
              table: tasks,
              item: z.object({ id: z.string(), title: z.string() }),
              save: TaskSave,
              view: anyUser,
              edit: anyUser,
              only: ['list', 'get'],
              readers: {
                list: async (req) => [{ id: 'all', title: `read for ${req.auth.churchId === church ? 'this church' : 'another'}` }],
                get: async (_req, taskId) => (taskId === alicesTask ? { id: taskId, title: 'from the reader' } : undefined),
              },
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

  it('lists only what the scope allows; staff see the whole church', async () => {
    expect((await call(app, 'GET', '/giving/tasks', { token: asAlice })).json().map((t: { title: string }) => t.title)).toEqual(['Alice’s']);
    expect((await call(app, 'GET', '/giving/tasks', { token: staff })).json()).toHaveLength(2);
  });

  it('refuses a row outside the scope with its own error, and another church’s id with 404, on get, save and delete', async () => {
    expect((await call(app, 'GET', `/giving/tasks/${alicesTask}`, { token: asAlice })).json()).toMatchObject({ title: 'Alice’s' });
    expect((await call(app, 'GET', `/giving/tasks/${alicesTask}`, { token: asBob })).statusCode).toBe(401);
    expect((await call(app, 'GET', `/giving/tasks/${alicesTask}`, { token: outsider })).statusCode).toBe(404);
    const save = await call(app, 'POST', '/giving/tasks', { token: asBob, body: [{ title: 'new' }, { id: alicesTask, title: 'Taken' }] });
    expect(save.statusCode).toBe(401);
    expect((await call(app, 'POST', '/giving/tasks', { token: outsider, body: { id: alicesTask, title: 'Taken' } })).statusCode).toBe(404);
    expect((await call(app, 'DELETE', `/giving/tasks/${alicesTask}`, { token: asBob })).statusCode).toBe(401);
    // Nothing was written: the refused batch's insert neither.
    const rows = await database.db.select().from(tasks).where(eq(tasks.churchId, church));
    expect(rows.map((r) => r.title).sort()).toEqual(['Alice’s', 'Bob’s']);
    expect(hooks).toEqual([]);
  });

  it('runs the delete hooks around the delete; a refusal in the before hook keeps the row', async () => {
    const [locked] = (await call(app, 'POST', '/giving/tasks', { token: asAlice, body: { title: 'Locked' } })).json();
    expect(locked.ownerId).toBe(alice);
    expect((await call(app, 'DELETE', `/giving/tasks/${locked.id}`, { token: asAlice })).statusCode).toBe(400);
    expect(await database.db.select().from(tasks).where(eq(tasks.id, locked.id))).toHaveLength(1);
    expect((await call(app, 'DELETE', `/giving/tasks/${alicesTask}`, { token: asAlice })).statusCode).toBe(200);
    expect(await database.db.select().from(tasks).where(eq(tasks.id, alicesTask))).toEqual([]);
    expect(hooks).toEqual(['before Locked', 'before Alice’s', 'after Alice’s']);
  });

  it('answers list and get from the readers given, a 404 when the get reader finds nothing', async () => {
    expect((await call(app, 'GET', '/giving/titles', { token: asBob })).json()).toEqual([{ id: 'all', title: 'read for this church' }]);
    expect((await call(app, 'GET', `/giving/titles/${randomUUID()}`, { token: asBob })).statusCode).toBe(404);
  });
});
