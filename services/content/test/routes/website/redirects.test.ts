import { eq } from 'drizzle-orm';
import { call } from '@church/common/testing';
import { redirects } from '../../../src/db/website';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';

const t = useContent();

describe('/content/redirects', () => {
  it('normalises paths, resolves one publicly, and lists all without a path', async () => {
    const c = church();
    const [r] = await ok(t.app, 'POST', '/content/redirects', { token: c.editor, body: { fromPath: 'Old-Page/', toPath: '/New-Page' } });
    expect(r).toMatchObject({ fromPath: '/old-page', toPath: '/new-page' });
    const [ext] = await ok(t.app, 'POST', '/content/redirects', { token: c.editor, body: { fromPath: '/give', toPath: 'https://Give.Example/Church' } });
    expect(ext.toPath).toBe('https://Give.Example/Church');
    expect(await ok(t.app, 'GET', `/content/redirects/public/${c.churchId}?path=/OLD-page/`)).toMatchObject({ toPath: '/new-page' });
    expect((await call(t.app, 'GET', `/content/redirects/public/${c.churchId}?path=/nothing`)).statusCode).toBe(404);
    expect(await ok(t.app, 'GET', `/content/redirects/public/${c.churchId}`)).toHaveLength(2);
    expect(await ok(t.app, 'GET', '/content/redirects', { token: c.anyone })).toHaveLength(2);
    expect(await ok(t.app, 'GET', `/content/redirects/${r.id}`, { token: c.anyone })).toEqual(r);
    await ok(t.app, 'DELETE', `/content/redirects/${r.id}`, { token: c.editor });
    expect(await ok(t.app, 'GET', '/content/redirects', { token: c.anyone })).toHaveLength(1);
  });

  it('refuses self-redirects, duplicates, chains and loops with 400 naming the field', async () => {
    const c = church();
    const post = (body: unknown) => call(t.app, 'POST', '/content/redirects', { token: c.editor, body });
    expect((await post({ fromPath: '/a', toPath: '/A/' })).json().errors[0]).toMatchObject({ param: 'toPath' });
    await ok(t.app, 'POST', '/content/redirects', { token: c.editor, body: { fromPath: '/a', toPath: '/b' } });
    expect((await post([{ fromPath: '/A', toPath: '/c' }])).json().errors[0]).toMatchObject({ param: '[0].fromPath' });
    expect((await post({ fromPath: '/b', toPath: '/c' })).json().errors[0]).toMatchObject({ param: 'fromPath', msg: expect.stringContaining('chain') });
    expect((await post({ fromPath: '/z', toPath: '/a' })).json().errors[0]).toMatchObject({ param: 'toPath' });
    expect((await post([{ fromPath: '/x', toPath: '/y' }, { fromPath: '/y', toPath: '/x' }])).statusCode).toBe(400);
    expect((await post({})).json().errors[0]).toMatchObject({ param: 'fromPath' });
    expect(await t.app.db.select().from(redirects).where(eq(redirects.churchId, c.churchId))).toHaveLength(1);
  });

  it('enforces at most 200 redirects per church', async () => {
    const c = church();
    await ok(t.app, 'POST', '/content/redirects', { token: c.editor, body: Array.from({ length: 200 }, (_, i) => ({ fromPath: `/from-${i}`, toPath: '/home' })) });
    const over = await call(t.app, 'POST', '/content/redirects', { token: c.editor, body: { fromPath: '/one-more', toPath: '/home' } });
    expect(over.statusCode).toBe(400);
    expect(over.json().errors[0].msg).toContain('200');
    await ok(t.app, 'POST', '/content/redirects', { token: church().editor, body: { fromPath: '/one-more', toPath: '/home' } });
  });

  it('keeps churches apart', async () => {
    const a = church();
    const b = church();
    const [r] = await ok(t.app, 'POST', '/content/redirects', { token: a.editor, body: { fromPath: '/a', toPath: '/b' } });
    expect((await call(t.app, 'POST', '/content/redirects', { token: b.editor, body: { id: r.id, toPath: '/evil' } })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/content/redirects/${r.id}`, { token: b.editor })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/content/redirects/public/${b.churchId}?path=/a`)).statusCode).toBe(404);
  });
});
