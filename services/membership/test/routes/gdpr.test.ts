import { randomUUID } from 'node:crypto';
import { HttpError } from '@church/common';
import { call, expectGuarded, fakeInternal } from '@church/common/testing';
import { useMembership, makeChurch } from '../setup';
import { addGroup, addPerson, addToGroup } from './fixtures';
import { GDPR_MODULES } from '@church/common';

// B1Admin:src/people/components/GdprActions.tsx downloads GET …/export as JSON and calls DELETE …/anonymize.
let missing = new Set<string>();
const anonymized: Array<{ module: string; body: unknown }> = [];
const internal = fakeInternal(
  Object.fromEntries(
    GDPR_MODULES.flatMap((m) => [
      [
        `POST /${m}/internal/gdpr/export`,
        (body: { personId: string }) => {
          if (missing.has(m)) throw new HttpError(404, [{ msg: 'Route not found' }]);
          return { data: m === 'giving' ? { donations: [{ id: 'd1', amount: '25.00', personId: body.personId }] } : {} };
        },
      ],
      [
        `POST /${m}/internal/gdpr/anonymize`,
        (body: unknown) => {
          if (missing.has(m)) throw new HttpError(404, [{ msg: 'Route not found' }]);
          anonymized.push({ module: m, body });
          return { changed: m === 'attendance' ? { visits: 0 } : {} };
        },
      ],
    ]),
  ),
);
const t = useMembership({ overrides: { internal } });
beforeEach(() => {
  missing = new Set();
  anonymized.length = 0;
});

describe('GDPR export', () => {
  it('answers one person’s data from membership and every other module as one document', async () => {
    const c = await makeChurch(t);
    const userId = randomUUID();
    const p = await addPerson(t, c.churchId, { firstName: 'Ada', lastName: 'Byron', email: 'ada@example.org', userId });
    const groupId = await addGroup(t, c.churchId, 'Choir');
    await addToGroup(t, c.churchId, groupId, p.id);
    const res = await call(t.app, 'GET', `/membership/gdpr/people/${p.id}/export`, { token: c.token(['People.Edit']) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ churchId: c.churchId, personId: p.id, person: { id: p.id, name: { first: 'Ada', last: 'Byron' }, contactInfo: { email: 'ada@example.org' } } });
    expect(body.membership.groups).toEqual([expect.objectContaining({ groupId, groupName: 'Choir', leader: false })]);
    expect(body.membership.household).toEqual({ id: p.householdId, name: 'Byron' });
    expect(Object.keys(body.modules).sort()).toEqual([...GDPR_MODULES].sort());
    expect(body.modules.giving.donations).toEqual([{ id: 'd1', amount: '25.00', personId: p.id }]);
    // each module is told the person and their login, for what it keeps per user (settings, page history)
    expect(internal.calls.filter((x) => x.path.endsWith('/gdpr/export')).at(-1)!.body).toEqual({ churchId: c.churchId, personId: p.id, userIds: [userId] });
  });

  it('answers a 502 naming the module that could not answer, never a partial export', async () => {
    const c = await makeChurch(t);
    const p = await addPerson(t, c.churchId);
    missing.add('doing');
    const res = await call(t.app, 'GET', `/membership/gdpr/people/${p.id}/export`, { token: c.token(['People.Edit']) });
    expect(res.statusCode).toBe(502);
    expect(res.json().errors[0]).toMatch(/doing answered 404/);
  });

  it('is the church’s: another church’s person is a 404, and it needs People.Edit', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const p = await addPerson(t, c.churchId);
    expect((await call(t.app, 'GET', `/membership/gdpr/people/${p.id}/export`, { token: other.token(['People.Edit']) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/membership/gdpr/people/${p.id}/anonymize`, { token: other.token(['People.Edit']) })).statusCode).toBe(404);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/gdpr/people/${p.id}/export`, permission: 'People.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/gdpr/people/${p.id}/anonymize`, permission: 'People.Edit' }, c.churchId);
  });
});

describe('GDPR anonymize', () => {
  it('asks every module, then removes what identifies the person in membership and keeps the record for counts', async () => {
    const c = await makeChurch(t);
    const p = await addPerson(t, c.churchId, { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.org', mobilePhone: '555-0100', birthDate: new Date('1906-12-09') });
    const groupId = await addGroup(t, c.churchId, 'Navy');
    await addToGroup(t, c.churchId, groupId, p.id);
    const res = await call(t.app, 'DELETE', `/membership/gdpr/people/${p.id}/anonymize`, { token: c.token(['People.Edit']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ personId: p.id, modules: expect.objectContaining({ attendance: { visits: 0 } }) });
    expect(anonymized.map((a) => a.module).sort()).toEqual([...GDPR_MODULES].sort());
    expect(anonymized[0]!.body).toEqual({ churchId: c.churchId, personId: p.id, userIds: [] });
    const [row] = await t.deps.database.rows<Record<string, unknown>>('select first_name, last_name, email, mobile_phone, birth_date, removed, opted_out from people where id = $1', [p.id]);
    expect(row).toEqual({ first_name: 'Anonymized', last_name: 'Person', email: null, mobile_phone: null, birth_date: null, removed: true, opted_out: true });
    expect(await t.deps.database.rows('select id from group_members where person_id = $1', [p.id])).toEqual([]);
    // The export still answers, with nothing left that names them.
    const exported = (await call(t.app, 'GET', `/membership/gdpr/people/${p.id}/export`, { token: c.token(['People.Edit']) })).json();
    expect(JSON.stringify(exported)).not.toMatch(/Grace|Hopper|grace@example|555-0100/);
  });

  it('changes nothing in membership when a module cannot do its part', async () => {
    const c = await makeChurch(t);
    const p = await addPerson(t, c.churchId, { firstName: 'Kept' });
    missing.add('giving');
    const res = await call(t.app, 'DELETE', `/membership/gdpr/people/${p.id}/anonymize`, { token: c.token(['People.Edit']) });
    expect(res.statusCode).toBe(502);
    expect(res.json().errors[0]).toMatch(/giving/);
    const [row] = await t.deps.database.rows<{ first_name: string }>('select first_name from people where id = $1', [p.id]);
    expect(row!.first_name).toBe('Kept');
  });

  it('unknown person → 404', async () => {
    const c = await makeChurch(t);
    expect((await call(t.app, 'DELETE', `/membership/gdpr/people/${randomUUID()}/anonymize`, { token: c.token(['People.Edit']) })).statusCode).toBe(404);
  });
});
