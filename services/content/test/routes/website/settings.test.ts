import { existsSync } from 'node:fs';
import path from 'node:path';
import { call } from '@church/common/testing';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';

const t = useContent();
const PNG = 'data:image/png;base64,' + Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString('base64');

describe('/content/settings', () => {
  it('saves church settings by key (Settings.Edit), shows public ones as key-value pairs', async () => {
    const c = church();
    const saved = await ok(t.app, 'POST', '/content/settings', { token: c.settingsEditor, body: [{ keyName: 'timeZone', value: 'America/Chicago', public: true }, { keyName: 'apiKey', value: 'secret' }] });
    expect(saved).toHaveLength(2);
    const [again] = await ok(t.app, 'POST', '/content/settings', { token: c.settingsEditor, body: { keyName: 'timeZone', value: 'Europe/London' } });
    expect(again.id).toBe(saved[0].id);
    // by id: the setting keeps its key; another church's id, or a user's setting, is not the church's to change
    const [byId] = await ok(t.app, 'POST', '/content/settings', { token: c.settingsEditor, body: { id: saved[1].id, value: 'rotated' } });
    expect(byId).toMatchObject({ id: saved[1].id, keyName: 'apiKey', value: 'rotated', public: false });
    expect((await call(t.app, 'POST', '/content/settings', { token: church().settingsEditor, body: { id: saved[1].id, value: 'x' } })).statusCode).toBe(404);
    const [own] = await ok(t.app, 'POST', '/content/settings/my', { token: c.token(), body: { keyName: 'theme', value: 'dark' } });
    expect((await call(t.app, 'POST', '/content/settings', { token: c.settingsEditor, body: { id: own.id, value: 'x' } })).statusCode).toBe(404);
    expect(await ok(t.app, 'GET', `/content/settings/public/${c.churchId}`)).toEqual({ timeZone: 'Europe/London' });
    expect((await ok(t.app, 'GET', '/content/settings', { token: c.settingsEditor })).map((s: { keyName: string }) => s.keyName)).toEqual(['apiKey', 'timeZone']);
    expect((await call(t.app, 'GET', '/content/settings', { token: c.editor })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/content/settings', { token: c.anyone, body: { keyName: 'x' } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/content/settings', { token: c.settingsEditor, body: [{ value: 'x' }] })).json().errors[0]).toMatchObject({ param: '[0].keyName' });
    expect(await ok(t.app, 'GET', `/content/settings/public/${church().churchId}`)).toEqual({});
  });

  it('stores a base64 image through storage and saves its URL; refuses what is not an image', async () => {
    const c = church();
    const [logo] = await ok(t.app, 'POST', '/content/settings', { token: c.settingsEditor, body: { keyName: 'logoLight', value: PNG, public: true } });
    expect(logo.value).toMatch(new RegExp(`/${c.churchId}/settings/church/logoLight-[0-9a-f]{8}\\.png$`));
    const key = logo.value.split('/files/')[1];
    expect(existsSync(path.join(t.config.DATA_DIR as string, 'files', key))).toBe(true);
    const fake = await call(t.app, 'POST', '/content/settings', { token: c.settingsEditor, body: { keyName: 'logo', value: 'data:image/png;base64,' + Buffer.from('<svg/>').toString('base64') } });
    expect(fake.statusCode).toBe(400);
    expect(fake.json().errors[0]).toMatchObject({ param: 'value' });
  });

  it('keeps each user their own settings', async () => {
    const c = church();
    const me = c.token();
    const other = c.token();
    const [mine] = await ok(t.app, 'POST', '/content/settings/my', { token: me, body: { keyName: 'theme', value: 'dark' } });
    expect(mine).toMatchObject({ keyName: 'theme', value: 'dark', public: false, userId: expect.any(String) });
    expect(await ok(t.app, 'GET', '/content/settings/my', { token: me })).toEqual([mine]);
    expect(await ok(t.app, 'GET', '/content/settings/my', { token: other })).toEqual([]);
    expect((await call(t.app, 'DELETE', `/content/settings/my/${mine.id}`, { token: other })).statusCode).toBe(404);
    expect(await ok(t.app, 'GET', '/content/settings', { token: c.settingsEditor })).toEqual([]);
    await ok(t.app, 'DELETE', `/content/settings/my/${mine.id}`, { token: me });
    expect(await ok(t.app, 'GET', '/content/settings/my', { token: me })).toEqual([]);
  });
});
