import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { settings } from '../../src/db/schema';
import { makeChurch, useMembership } from '../setup';

const t = useMembership();

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

describe('POST /membership/settings', () => {
  it('upserts by keyName and answers the saved rows', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Settings.Edit']);
    const res = await call(t.app, 'POST', '/membership/settings', {
      token,
      body: [
        { keyName: 'primaryColor', value: '#123456', public: true },
        { keyName: 'directoryVisibility', value: 'Members' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const [color, dir] = res.json();
    expect(color).toEqual({ id: expect.any(String), churchId: c.churchId, keyName: 'primaryColor', value: '#123456', public: true });
    expect(dir).toMatchObject({ keyName: 'directoryVisibility', value: 'Members', public: false });
    const again = await call(t.app, 'POST', '/membership/settings', { token, body: { keyName: 'primaryColor', value: '#abcdef' } });
    expect(again.json()).toEqual([{ ...color, value: '#abcdef' }]);
    const byId = await call(t.app, 'POST', '/membership/settings', { token, body: { id: dir.id, keyName: 'directoryVisibility', value: 'Staff', public: false } });
    expect(byId.json()[0]).toMatchObject({ id: dir.id, value: 'Staff' });
    const rows = await t.app.db.select().from(settings).where(eq(settings.churchId, c.churchId));
    expect(rows.map((r) => [r.keyName, r.value]).sort()).toEqual([
      ['directoryVisibility', 'Staff'],
      ['primaryColor', '#abcdef'],
    ]);
  });

  it('stores a base64 image and keeps its URL', async () => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'POST', '/membership/settings', {
      token: c.token(['Settings.Edit']),
      body: { keyName: 'logoLight', value: `data:image/png;base64,${PNG.toString('base64')}`, public: true },
    });
    expect(res.statusCode).toBe(200);
    const url: string = res.json()[0].value;
    expect(url).toMatch(new RegExp(`/files/${c.churchId}/settings/logoLight-\\d+\\.png$`));
    const file = path.join(path.resolve(t.config.DATA_DIR), 'files', url.slice(url.indexOf(`${c.churchId}/`)));
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file)).toEqual(PNG);
    const notImage = await call(t.app, 'POST', '/membership/settings', {
      token: c.token(['Settings.Edit']),
      body: [{ keyName: 'doc', value: 'data:text/html;base64,PGI+aGk8L2I+' }],
    });
    expect(notImage.statusCode).toBe(400);
    expect(notImage.json().errors[0].param).toBe('[0].value');
  });

  it("another church's setting id is a 404 and the batch writes nothing", async () => {
    const a = await makeChurch(t);
    const b = await makeChurch(t);
    const [s] = (await call(t.app, 'POST', '/membership/settings', { token: a.token(['Settings.Edit']), body: { keyName: 'k', value: 'a' } })).json();
    const res = await call(t.app, 'POST', '/membership/settings', { token: b.token(['Settings.Edit']), body: [{ keyName: 'mine', value: 'b' }, { id: s.id, keyName: 'k', value: 'b' }] });
    expect(res.statusCode).toBe(404);
    expect(await t.app.db.select().from(settings).where(eq(settings.churchId, b.churchId))).toEqual([]);
    expect((await t.app.db.select().from(settings).where(eq(settings.id, s.id)))[0]!.value).toBe('a');
  });

  it('validates and is guarded', async () => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'POST', '/membership/settings', { token: c.token(['Settings.Edit']), body: { value: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('keyName');
    await expectGuarded(t.app, { method: 'POST', url: '/membership/settings', body: { keyName: 'x', value: 'y' }, permission: 'Settings.Edit' }, c.churchId);
  });
});

describe('GET /membership/settings and /public/:churchId', () => {
  it('Settings.Edit reads all settings; the public read answers only public ones as a map', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    await call(t.app, 'POST', '/membership/settings', {
      token: c.token(['Settings.Edit']),
      body: [
        { keyName: 'primaryColor', value: '#111', public: true },
        { keyName: 'secret', value: 'hidden' },
      ],
    });
    await call(t.app, 'POST', '/membership/settings', { token: other.token(['Settings.Edit']), body: { keyName: 'primaryColor', value: '#222', public: true } });
    const all = await call(t.app, 'GET', '/membership/settings', { token: c.token(['Settings.Edit']) });
    expect(all.json().map((s: { keyName: string }) => s.keyName)).toEqual(['primaryColor', 'secret']);
    const pub = await call(t.app, 'GET', `/membership/settings/public/${c.churchId}`);
    expect(pub.statusCode).toBe(200);
    expect(pub.json()).toEqual({ primaryColor: '#111' });
    expect((await call(t.app, 'GET', '/membership/settings/public/nope')).statusCode).toBe(400);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/settings', permission: 'Settings.Edit' }, c.churchId);
  });
});

// The apps' settings editors (B1Admin:src/settings/components/GradePromotionSettingsEdit.tsx, FeeOptionsSettingsEdit,
// mobile/B1MobilePage.tsx, KioskThemeEdit ...) send new settings as {churchId, public: 1, keyName} with the value
// set, post back what they loaded, and delete a setting they switch off.
describe('settings as the apps save them', () => {
  it('takes public: 1, id: "", numbers and booleans as values, and the church id the editors send', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const token = c.token(['Settings.Edit']);
    const res = await call(t.app, 'POST', '/membership/settings', {
      token,
      body: [
        { id: '', churchId: other.churchId, public: 1, keyName: 'gradePromotionDate', value: '08-01' },
        { churchId: c.churchId, public: 1, keyName: 'messagingMinimumAge', value: 13 },
        { public: 0, keyName: 'enableQRGuestRegistration', value: true },
        { public: 1, keyName: 'directoryApprovalGroupId' },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((s: { churchId: string; keyName: string; value: string | null; public: boolean }) => [s.churchId, s.keyName, s.value, s.public])).toEqual([
      [c.churchId, 'gradePromotionDate', '08-01', true],
      [c.churchId, 'messagingMinimumAge', '13', true],
      [c.churchId, 'enableQRGuestRegistration', 'true', false],
      [c.churchId, 'directoryApprovalGroupId', null, true],
    ]);
    expect(await t.app.db.select().from(settings).where(eq(settings.churchId, other.churchId))).toEqual([]);
    // What GET answered, posted back with a new value, updates that row.
    const [loaded] = (await call(t.app, 'GET', '/membership/settings', { token })).json().filter((s: { keyName: string }) => s.keyName === 'gradePromotionDate');
    const [updated] = (await call(t.app, 'POST', '/membership/settings', { token, body: [{ ...loaded, value: '09-15' }] })).json();
    expect(updated).toEqual({ ...loaded, value: '09-15' });
    expect((await call(t.app, 'GET', `/membership/settings/public/${c.churchId}`)).json()).toMatchObject({ gradePromotionDate: '09-15', messagingMinimumAge: '13' });
    expect((await call(t.app, 'POST', '/membership/settings', { token, body: { keyName: 'x', value: { nested: true } } })).json().errors[0].param).toBe('value');
  });

  it('DELETE /settings/:id removes the church’s setting; another church’s is a 404 and stays', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const token = c.token(['Settings.Edit']);
    const [s] = (await call(t.app, 'POST', '/membership/settings', { token, body: { keyName: 'gradePromotionDate', value: '08-01', public: 1 } })).json();
    expect((await call(t.app, 'DELETE', `/membership/settings/${s.id}`, { token: other.token(['Settings.Edit']) })).statusCode).toBe(404);
    expect(await t.app.db.select().from(settings).where(eq(settings.id, s.id))).toHaveLength(1);
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/settings/${s.id}`, permission: 'Settings.Edit' }, c.churchId);
    const res = await call(t.app, 'DELETE', `/membership/settings/${s.id}`, { token });
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    expect(await t.app.db.select().from(settings).where(eq(settings.id, s.id))).toEqual([]);
    expect((await call(t.app, 'DELETE', `/membership/settings/${s.id}`, { token })).statusCode).toBe(404);
  });
});
