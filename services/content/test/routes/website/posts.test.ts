import { XMLParser } from 'fast-xml-parser';
import { call } from '@church/common/testing';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';

const t = useContent();
const past = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

describe('POST /content/posts', () => {
  it('keeps slugs unique per church (400 naming slug), makes one from the title when absent, and adds authorName', async () => {
    const c = church();
    const authorId = '6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    t.membership.names.set(authorId, 'Pastor Ann');
    const [post] = await ok(t.app, 'POST', '/content/posts', { token: c.editor, body: { title: 'Easter Sunday!', content: '# He is risen', authorId, tags: ['easter'] } });
    expect(post).toMatchObject({ slug: 'easter-sunday', authorName: 'Pastor Ann', publishDate: null, tags: ['easter'], churchId: c.churchId });
    const [second] = await ok(t.app, 'POST', '/content/posts', { token: c.editor, body: { title: 'Easter Sunday' } });
    expect(second.slug).toBe('easter-sunday-2');
    const clash = await call(t.app, 'POST', '/content/posts', { token: c.editor, body: [{ title: 'x', slug: 'easter-sunday' }] });
    expect(clash.statusCode).toBe(400);
    expect(clash.json().errors[0]).toMatchObject({ param: '[0].slug' });
    const twice = await call(t.app, 'POST', '/content/posts', { token: c.editor, body: [{ title: 'a', slug: 'same' }, { title: 'b', slug: 'same' }] });
    expect(twice.json().errors[0]).toMatchObject({ param: '[1].slug' });
    await ok(t.app, 'POST', '/content/posts', { token: church().editor, body: { title: 'Other church', slug: 'easter-sunday' } });
    const bad = await call(t.app, 'POST', '/content/posts', { token: c.editor, body: { title: 'x', slug: 'Not a slug!' } });
    expect(bad.json().errors[0]).toMatchObject({ param: 'slug' });
    expect((await call(t.app, 'POST', '/content/posts', { token: c.editor, body: {} })).json().errors[0]).toMatchObject({ param: 'title' });
    expect((await ok(t.app, 'GET', '/content/posts', { token: c.editor })).map((p: { slug: string }) => p.slug).sort()).toEqual(['easter-sunday', 'easter-sunday-2']);
    expect(await ok(t.app, 'GET', `/content/posts/${post.id}`, { token: c.editor })).toMatchObject({ id: post.id, authorName: 'Pastor Ann' });
    await ok(t.app, 'DELETE', `/content/posts/${post.id}`, { token: c.editor });
    expect((await call(t.app, 'GET', `/content/posts/${post.id}`, { token: c.anyone })).statusCode).toBe(404);
  });
});

describe('public posts', () => {
  it('lists only published posts, newest first, filtered and paginated (at most 50 a page), with categories and by slug', async () => {
    const c = church();
    await ok(t.app, 'POST', '/content/posts', {
      token: c.editor,
      body: [
        { title: 'Old', publishDate: past(10), category: 'News', tags: ['a'] },
        { title: 'New', publishDate: past(1), category: 'Teaching', tags: ['a', 'b'] },
        { title: 'Draft', category: 'Secret' },
        { title: 'Future', publishDate: new Date(Date.now() + 86_400_000).toISOString(), category: 'Secret' },
      ],
    });
    const all = await ok(t.app, 'GET', `/content/posts/public/${c.churchId}`);
    expect(all).toMatchObject({ total: 2, page: 1, pageSize: 10 });
    expect(all.posts.map((p: { title: string }) => p.title)).toEqual(['New', 'Old']);
    expect((await ok(t.app, 'GET', `/content/posts/public/${c.churchId}?category=News`)).posts.map((p: { title: string }) => p.title)).toEqual(['Old']);
    expect((await ok(t.app, 'GET', `/content/posts/public/${c.churchId}?tag=b`)).posts.map((p: { title: string }) => p.title)).toEqual(['New']);
    const second = await ok(t.app, 'GET', `/content/posts/public/${c.churchId}?page=2&pageSize=1`);
    expect(second).toMatchObject({ total: 2, page: 2, pageSize: 1, posts: [{ title: 'Old' }] });
    const tooBig = await call(t.app, 'GET', `/content/posts/public/${c.churchId}?pageSize=51`);
    expect(tooBig.statusCode).toBe(400);
    expect(tooBig.json().errors[0]).toMatchObject({ param: 'pageSize', location: 'query' });
    expect(await ok(t.app, 'GET', `/content/posts/public/${c.churchId}/categories`)).toEqual(['News', 'Teaching']);
    expect(await ok(t.app, 'GET', `/content/posts/public/${c.churchId}/slug/new`)).toMatchObject({ title: 'New' });
    expect((await call(t.app, 'GET', `/content/posts/public/${c.churchId}/slug/draft`)).statusCode).toBe(404);
  });

  it('still answers when membership is away (names left out)', async () => {
    const c = church();
    // an author membership names (Ann Lee) while it answers
    await ok(t.app, 'POST', '/content/posts', { token: c.editor, body: { title: 'P', publishDate: past(1), authorId: t.membership.addPerson(c.churchId) } });
    t.membership.state.down = true;
    try {
      expect((await ok(t.app, 'GET', `/content/posts/public/${c.churchId}`)).posts[0].authorName).toBeNull();
    } finally {
      t.membership.state.down = false;
    }
  });
});

describe('the kept public list', () => {
  const titles = async (churchId: string) => (await ok(t.app, 'GET', `/content/posts/public/${churchId}`)).posts.map((p: { title: string }) => p.title);

  it('shows every write on the next read, answers 304 while unchanged, and keeps each church apart', async () => {
    const c = church();
    const other = church();
    const [first] = await ok(t.app, 'POST', '/content/posts', { token: c.editor, body: { title: 'First', publishDate: past(3) } });
    await ok(t.app, 'POST', '/content/posts', { token: other.editor, body: { title: 'Elsewhere', publishDate: past(1) } });
    expect(await titles(c.churchId)).toEqual(['First']);
    const kept = await call(t.app, 'GET', `/content/posts/public/${c.churchId}`, { headers: { 'accept-encoding': 'br' } });
    expect(kept.headers['content-encoding']).toBe('br');
    expect((await call(t.app, 'GET', `/content/posts/public/${c.churchId}`, { headers: { 'accept-encoding': 'br', 'if-none-match': String(kept.headers.etag) } })).statusCode).toBe(304);

    await ok(t.app, 'POST', '/content/posts', { token: c.editor, body: { id: first.id, title: 'First, edited' } });
    expect(await titles(c.churchId)).toEqual(['First, edited']);
    const [second] = await ok(t.app, 'POST', '/content/posts', { token: c.editor, body: { title: 'Second', publishDate: past(1) } });
    expect(await titles(c.churchId)).toEqual(['Second', 'First, edited']);
    await ok(t.app, 'POST', '/content/posts', { token: c.editor, body: { id: second.id, publishDate: null } });
    expect(await titles(c.churchId)).toEqual(['First, edited']);
    await ok(t.app, 'DELETE', `/content/posts/${first.id}`, { token: c.editor });
    expect(await ok(t.app, 'GET', `/content/posts/public/${c.churchId}`)).toMatchObject({ posts: [], total: 0 });
    expect(await titles(other.churchId)).toEqual(['Elsewhere']);
  });

  it('shows a scheduled post when its time comes, with nothing written in between', async () => {
    const c = church();
    const hour = 3_600_000;
    await ok(t.app, 'POST', '/content/posts', {
      token: c.editor,
      body: [
        { title: 'Out', publishDate: past(1) },
        { title: 'In an hour', publishDate: new Date(Date.now() + hour).toISOString() },
        { title: 'In two hours', publishDate: new Date(Date.now() + 2 * hour).toISOString() },
      ],
    });
    expect(await titles(c.churchId)).toEqual(['Out']);
    const start = Date.now();
    const clock = jest.spyOn(Date, 'now');
    try {
      clock.mockReturnValue(start + hour + 60_000);
      expect(await ok(t.app, 'GET', `/content/posts/public/${c.churchId}`)).toMatchObject({ total: 2, posts: [{ title: 'In an hour' }, { title: 'Out' }] });
      clock.mockReturnValue(start + 3 * hour);
      expect(await titles(c.churchId)).toEqual(['In two hours', 'In an hour', 'Out']);
    } finally {
      clock.mockRestore();
    }
  });

  it('names a renamed author within a minute, and asks membership again after a failure', async () => {
    const c = church();
    const authorId = '0d5c1f7e-2b3a-4c4d-8e9f-a0b1c2d3e4f5';
    t.membership.names.set(authorId, 'Ann');
    await ok(t.app, 'POST', '/content/posts', { token: c.editor, body: { title: 'P', publishDate: past(1), authorId } });
    expect((await ok(t.app, 'GET', `/content/posts/public/${c.churchId}`)).posts[0].authorName).toBe('Ann');
    t.membership.names.set(authorId, 'Ann Smith');
    const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 61_000);
    try {
      expect((await ok(t.app, 'GET', `/content/posts/public/${c.churchId}`)).posts[0].authorName).toBe('Ann Smith');
    } finally {
      clock.mockRestore();
    }

    const d = church();
    await ok(t.app, 'POST', '/content/posts', { token: d.editor, body: { title: 'Q', publishDate: past(1), authorId } });
    t.membership.state.down = true;
    try {
      expect((await ok(t.app, 'GET', `/content/posts/public/${d.churchId}`)).posts[0].authorName).toBeNull();
    } finally {
      t.membership.state.down = false;
    }
    expect((await ok(t.app, 'GET', `/content/posts/public/${d.churchId}`)).posts[0].authorName).toBe('Ann Smith');
  });
});

describe('GET /content/posts/rss/:churchId', () => {
  it('is valid RSS 2.0 of published posts with links {siteUrl}/blog/{slug}', async () => {
    const c = church();
    await ok(t.app, 'POST', '/content/posts', {
      token: c.editor,
      body: [
        { title: 'Fish & <Loaves>', slug: 'fish', publishDate: past(2), content: '**bold** text', excerpt: 'Short' },
        { title: 'Second', publishDate: past(1) },
        { title: 'Draft' },
      ],
    });
    const res = await call(t.app, 'GET', `/content/posts/rss/${c.churchId}?siteUrl=https://grace.example/`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/rss+xml');
    const doc = new XMLParser({ ignoreAttributes: false }).parse(res.body);
    expect(doc.rss['@_version']).toBe('2.0');
    expect(doc.rss.channel.title).toBe('Grace Church Blog');
    const items = [doc.rss.channel.item].flat();
    expect(items.map((i: { title: string }) => i.title)).toEqual(['Second', 'Fish & <Loaves>']);
    expect(items[1].link).toBe('https://grace.example/blog/fish');
    expect(items[1]['content:encoded']).toContain('<strong>bold</strong>');
    const missing = await call(t.app, 'GET', `/content/posts/rss/${c.churchId}`);
    expect(missing.json().errors[0]).toMatchObject({ param: 'siteUrl', location: 'query' });
  });
});
