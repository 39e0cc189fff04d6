import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { campuses } from '../src/db/schema';
import { makeChurch, useAttendance } from './setup';

// Contract tests: the shapes ChurchApps' own apps (B1Admin, B1App) send and read, each named for the client file
// that depends on it, so a later change cannot break the apps silently.
const t = useAttendance();

describe('campuses under membership (the apps manage campuses there; attendance owns the rows)', () => {
  it('B1Admin:src/settings/components/CampusEdit.tsx saves a new campus as [{...form}] and then the whole record it read', async () => {
    const c = makeChurch();
    const token = c.token(['Services.Edit']);
    // a new campus: the form's values, empty fields as "" (no id at all: the editor starts from {})
    const form = { name: 'North', address1: '1 Main St', address2: '', city: 'Tulsa', state: 'OK', zip: '', timezone: '', website: '' };
    const created = await call(t.app, 'POST', '/membership/campuses', { token, body: [form] });
    expect(created.statusCode).toBe(200);
    const [campus] = created.json();
    expect(campus).toEqual({ id: expect.any(String), churchId: c.churchId, name: 'North', address1: '1 Main St', address2: '', city: 'Tulsa', state: 'OK', zip: '', timezone: null, website: '' });

    // an edit: { ...props.campus, ...values } — the record as listed (churchId, and an importKey the Api had) plus the form
    const edited = await call(t.app, 'POST', '/membership/campuses', { token, body: [{ ...campus, importKey: null, name: 'North Campus', timezone: 'America/Chicago' }] });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toEqual([{ ...campus, name: 'North Campus', timezone: 'America/Chicago' }]);

    // and the delete button
    expect((await call(t.app, 'DELETE', `/membership/campuses/${campus.id}`, { token })).json()).toEqual({});
    expect((await t.app.db.select().from(campuses).where(eq(campuses.id, campus.id)))[0]!.removed).toBe(true);
  });

  it('B1Admin:src/settings/components/CampusesSection.tsx (and hooks/useCampuses.ts) lists id, name, city, state, timezone', async () => {
    const c = makeChurch();
    const token = c.token(['Services.Edit']);
    await call(t.app, 'POST', '/membership/campuses', { token, body: [{ name: 'South', city: 'Tulsa', state: 'OK', timezone: 'America/Chicago' }] });
    const res = await call(t.app, 'GET', '/membership/campuses', { token: c.token() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([expect.objectContaining({ id: expect.any(String), name: 'South', city: 'Tulsa', state: 'OK', timezone: 'America/Chicago' })]);
  });

  it('B1App:src/components/groups/GroupsBrowser.tsx reads /membership/campuses/public/:churchId anonymously: [{id, name}]', async () => {
    const c = makeChurch();
    const [campus] = (await call(t.app, 'POST', '/membership/campuses', { token: c.token(['Services.Edit']), body: [{ name: 'Main', city: 'Tulsa' }] })).json();
    const res = await call(t.app, 'GET', `/membership/campuses/public/${c.churchId}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: campus.id, name: 'Main' }]);
  });
});

describe('errors the apps show (ApiHelper throws new Error(json.errors[0]))', () => {
  it('B1Admin:src/settings/components/CampusEdit.tsx shows errors[0] as a sentence when the save is refused', async () => {
    const c = makeChurch();
    const res = await call(t.app, 'POST', '/membership/campuses', { token: c.token(), body: [{ name: 'North' }] });
    expect(res.statusCode).toBe(401);
    expect(typeof res.json().errors[0]).toBe('string');
    const missing = await call(t.app, 'DELETE', `/membership/campuses/${c.churchId}`, { token: c.token(['Services.Edit']) });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ errors: ['Campus not found'] });
  });
});
