import { randomUUID } from 'node:crypto';
import { call, expectGuarded } from '@church/common/testing';
import { useMembership, makeChurch } from '../setup';
import { addPerson } from './fixtures';

// B1Admin:src/settings/BatchesPage.tsx lists {label, source, status, itemCount, created, userId}, reads
// /batches/:id/results {rows[{action, entityType, entityId, created}]} and undoes {restored, skippedConflicts, failed, status}.
const t = useMembership();

describe('batches of bulk changes', () => {
  it('a bulk update is one batch that undo reverses, keeping a person changed since', async () => {
    const c = await makeChurch(t);
    const staff = c.token(['People.Edit', 'People.View', 'Settings.Edit']);
    const a = await addPerson(t, c.churchId, { firstName: 'Al', membershipStatus: 'Guest' });
    const b = await addPerson(t, c.churchId, { firstName: 'Bo', membershipStatus: 'Visitor' });
    const res = await call(t.app, 'POST', '/membership/people/bulk-update', { token: staff, body: { personIds: [a.id, b.id], updates: { membershipStatus: 'Member' } } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, updatedIds: expect.arrayContaining([a.id, b.id]), count: 2, batchId: expect.any(String) });
    const { batchId } = res.json();
    const list = (await call(t.app, 'GET', '/membership/batches', { token: staff })).json();
    expect(list).toEqual([
      { id: batchId, churchId: c.churchId, userId: expect.any(String), label: 'Updated membershipStatus of 2 people', source: 'people/bulk-update', status: 'completed', itemCount: 2, created: expect.any(String), completedAt: expect.any(String), undoneAt: null },
    ]);
    const results = (await call(t.app, 'GET', `/membership/batches/${batchId}/results`, { token: staff })).json();
    expect(results.rows.map((r: { entityId: string; action: string }) => [r.entityId, r.action]).sort()).toEqual([[a.id, 'person_updated'], [b.id, 'person_updated']].sort());
    // Someone changes Bo again later: undo keeps that change.
    await new Promise((r) => setTimeout(r, 1100));
    await call(t.app, 'POST', '/membership/people', { token: staff, body: [{ id: b.id, membershipStatus: 'Staff' }] });
    const undo = await call(t.app, 'POST', `/membership/batches/${batchId}/undo`, { token: staff, body: {} });
    expect(undo.json()).toEqual({ restored: 1, skippedConflicts: [{ entityType: 'person', entityId: b.id }], failed: [], status: 'partial' });
    const statuses = await t.deps.database.rows<{ id: string; membership_status: string }>('select id, membership_status from people where id = any($1)', [[a.id, b.id]]);
    expect(Object.fromEntries(statuses.map((s) => [s.id, s.membership_status]))).toEqual({ [a.id]: 'Guest', [b.id]: 'Staff' });
    expect((await call(t.app, 'POST', `/membership/batches/${batchId}/undo`, { token: staff, body: {} })).statusCode).toBe(400);
  });

  it('a bulk delete is undone by bringing the people back', async () => {
    const c = await makeChurch(t);
    const staff = c.token(['People.Edit', 'People.View', 'Settings.Edit']);
    const a = await addPerson(t, c.churchId, { firstName: 'Gone' });
    const { batchId } = (await call(t.app, 'POST', '/membership/people/bulk-delete', { token: staff, body: { personIds: [a.id] } })).json();
    expect((await call(t.app, 'GET', `/membership/people/${a.id}`, { token: staff })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', `/membership/batches/${batchId}/undo`, { token: staff, body: {} })).json()).toMatchObject({ restored: 1, status: 'undone' });
    expect((await call(t.app, 'GET', `/membership/people/${a.id}`, { token: staff })).statusCode).toBe(200);
  });

  it('keeps batches to their church and to their maker or Settings.Edit', async () => {
    const c = await makeChurch(t);
    const a = await addPerson(t, c.churchId);
    const maker = c.token(['People.Edit']);
    const { batchId } = (await call(t.app, 'POST', '/membership/people/bulk-update', { token: maker, body: { personIds: [a.id], updates: { gender: 'Female' } } })).json();
    // Another user of the church without Settings.Edit: refused.
    expect((await call(t.app, 'GET', `/membership/batches/${batchId}/results`, { token: c.token(['People.Edit']) })).statusCode).toBe(401);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/batches/${batchId}/results`, { token: other.token(['Settings.Edit']) })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', `/membership/batches/${batchId}/undo`, { token: other.token(['People.Edit', 'Settings.Edit']), body: {} })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/membership/batches', { token: other.token(['Settings.Edit']) })).json()).toEqual([]);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/batches', permission: 'Settings.Edit' }, c.churchId);
  });

  it('undoes only for a caller who holds People.Edit now, not only when the batch was made', async () => {
    const c = await makeChurch(t);
    const a = await addPerson(t, c.churchId, { membershipStatus: 'Guest' });
    const userId = randomUUID();
    const maker = c.token(['People.Edit'], { userId });
    const { batchId } = (await call(t.app, 'POST', '/membership/people/bulk-update', { token: maker, body: { personIds: [a.id], updates: { membershipStatus: 'Member' } } })).json();
    // the maker's role no longer grants People.Edit (a new token; the old one was revoked with the role)
    const since = c.token(['People.View'], { userId });
    const refused = await call(t.app, 'POST', `/membership/batches/${batchId}/undo`, { token: since, body: {} });
    expect(refused.statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/membership/people/${a.id}`, { token: since })).json().membershipStatus).toBe('Member');
    // Settings.Edit alone does not change people either
    expect((await call(t.app, 'POST', `/membership/batches/${batchId}/undo`, { token: c.token(['Settings.Edit']), body: {} })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', `/membership/batches/${batchId}/undo`, { token: c.token(['People.Edit', 'Settings.Edit']), body: {} })).json()).toMatchObject({ restored: 1, status: 'undone' });
  });
});

describe('people changes in the audit log and webhooks', () => {
  it('reports saves and deletes of people with who did them, filterable by person and record', async () => {
    const c = await makeChurch(t);
    const staff = c.token(['People.Edit', 'Settings.Edit']);
    const [saved] = (await call(t.app, 'POST', '/membership/people', { token: staff, body: [{ firstName: 'Audit', lastName: 'Me' }] })).json();
    await call(t.app, 'POST', '/membership/people', { token: staff, body: [{ id: saved.id, lastName: 'You' }] });
    await call(t.app, 'DELETE', `/membership/people/${saved.id}`, { token: staff });
    await t.drain();
    const page = (await call(t.app, 'GET', `/membership/auditlogs?entityType=person&entityId=${saved.id}`, { token: staff })).json();
    expect(page.logs.map((l: { action: string }) => l.action)).toEqual(['deleted', 'updated', 'created']);
    const [deleted, updated] = page.logs;
    expect(JSON.parse(updated.details)).toMatchObject({ changes: { lastName: { before: 'Me', after: 'You' } }, before: { lastName: 'Me' }, after: { lastName: 'You' } });
    expect(JSON.parse(deleted.details).before).toMatchObject({ firstName: 'Audit' });
    expect(updated).toMatchObject({ category: 'person', module: 'membership', personId: c.personId });
    const byPerson = (await call(t.app, 'GET', `/membership/auditlogs?personId=${c.personId}&entityType=person`, { token: staff })).json();
    expect(byPerson.count).toBe(3);
  });
});
