import { randomUUID } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { call, fakeServer, type FakeRequest } from '@church/common/testing';
import { makeChurch, useDoing } from '../setup';

// The external lesson feed, as Lessons.church answers `/venues/public/feed/:venueId`.
const venue = {
  id: 'venue1',
  name: 'Elementary',
  lessonName: 'Creation',
  sections: [
    { id: 's1', name: 'Welcome', actions: [{ id: 'a1', actionType: 'say', content: 'Hello everyone', seconds: 60 }] },
    { id: 's2', name: 'Video', actions: [{ id: 'a2', actionType: 'play', content: 'Day one', seconds: 120, files: [{ id: 'f1', name: 'Day one', url: 'https://cdn.example/day1.mp4' }] }] },
  ],
};
let feedFails = false;
const handler = (req: FakeRequest) => {
  if (feedFails) return { status: 503, body: { error: 'down' } };
  if (req.path === '/venues/public/feed/venue1') return { body: venue };
  return { status: 404, body: { error: 'not found' } };
};
const t = useDoing({
  fakes: async () => {
    const server = await fakeServer(handler);
    return { server, config: { LESSON_FEED_BASE_URL: server.url }, close: server.close };
  },
});

async function plan(c: ReturnType<typeof makeChurch>, body: Record<string, unknown> = {}) {
  return (await call(t.app, 'POST', '/doing/plans', { token: c.token(), body: { name: 'Kids', serviceDate: '2030-01-05', ...body } })).json()[0];
}
const item = async (c: ReturnType<typeof makeChurch>, body: Record<string, unknown>) => {
  const res = await call(t.app, 'POST', '/doing/planItems', { token: c.token(), body });
  expect(res.statusCode).toBe(200);
  return res.json()[0];
};

describe('/doing/planItems', () => {
  it('builds the tree, appends new items last, re-sorts siblings, deletes a subtree', async () => {
    const c = makeChurch();
    const p = await plan(c);
    const header = await item(c, { planId: p.id, label: 'Worship', itemType: 'header' });
    const a = await item(c, { planId: p.id, parentId: header.id, label: 'A' });
    const b = await item(c, { planId: p.id, parentId: header.id, label: 'B' });
    const cc = await item(c, { planId: p.id, parentId: header.id, label: 'C' });
    expect([a.sort, b.sort, cc.sort]).toEqual([1, 2, 3]);
    const sorted = await call(t.app, 'POST', '/doing/planItems/sort', { token: c.token(), body: { id: cc.id, sort: 1.5 } });
    expect(sorted.statusCode).toBe(200);
    expect(sorted.json().sort).toBe(2);
    const tree = (await call(t.app, 'GET', `/doing/planItems/plan/${p.id}`, { token: c.token() })).json();
    expect(tree[0].children.map((i: { label: string; sort: number }) => [i.label, i.sort])).toEqual([
      ['A', 1],
      ['C', 2],
      ['B', 3],
    ]);
    const pub = await call(t.app, 'GET', `/doing/planItems/presenter/${c.churchId}/${p.id}`);
    expect(pub.json()).toEqual(tree);
    expect((await call(t.app, 'GET', `/doing/planItems/${a.id}`, { token: c.token() })).json().label).toBe('A');
    expect((await call(t.app, 'GET', `/doing/planItems/ids?ids=${a.id},${b.id}`, { token: c.token() })).json()).toHaveLength(2);
    expect((await call(t.app, 'DELETE', `/doing/planItems/${header.id}`, { token: c.token() })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/doing/planItems/plan/${p.id}`, { token: c.token() })).json()).toEqual([]);
  });

  it('refuses an item of a foreign plan or parent, and another church sees nothing', async () => {
    const c = makeChurch();
    const other = makeChurch();
    const p = await plan(c);
    const res = await call(t.app, 'POST', '/doing/planItems', { token: other.token(), body: { planId: p.id, label: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('planId');
    const parent = await call(t.app, 'POST', '/doing/planItems', { token: c.token(), body: [{ planId: p.id, parentId: randomUUID() }] });
    expect(parent.json().errors[0].param).toBe('[0].parentId');
    await item(c, { planId: p.id, label: 'Mine' });
    expect((await call(t.app, 'GET', `/doing/planItems/plan/${p.id}`, { token: other.token() })).json()).toEqual([]);
    expect((await call(t.app, 'GET', `/doing/planItems/presenter/${other.churchId}/${p.id}`)).json()).toEqual([]);
    expect((await call(t.app, 'POST', '/doing/planItems/sort', { token: c.token(), body: { id: randomUUID(), sort: 1 } })).statusCode).toBe(404);
  });

  it('refuses to move an item under itself or under one of its own descendants (the tree keeps every item)', async () => {
    const c = makeChurch();
    const p = await plan(c);
    const top = await item(c, { planId: p.id, label: 'Top' });
    const mid = await item(c, { planId: p.id, parentId: top.id, label: 'Mid' });
    const low = await item(c, { planId: p.id, parentId: mid.id, label: 'Low' });
    const token = c.token();
    for (const parentId of [top.id, mid.id, low.id]) {
      const sorted = await call(t.app, 'POST', '/doing/planItems/sort', { token, body: { id: top.id, parentId, sort: 1 } });
      expect(sorted.statusCode).toBe(400);
      expect(sorted.json().errors[0].param).toBe('parentId');
      const saved = await call(t.app, 'POST', '/doing/planItems', { token, body: [{ id: top.id, planId: p.id, parentId, label: 'Top' }] });
      expect(saved.statusCode).toBe(400);
      expect(saved.json().errors[0].param).toBe('[0].parentId');
    }
    // two items of one batch naming each other as parent
    const pair = await call(t.app, 'POST', '/doing/planItems', { token, body: [{ id: low.id, planId: p.id, parentId: top.id }, { id: top.id, planId: p.id, parentId: low.id }] });
    expect(pair.statusCode).toBe(400);
    expect(pair.json().errors[0].param).toBe('[1].parentId');
    const tree = (await call(t.app, 'GET', `/doing/planItems/plan/${p.id}`, { token })).json();
    expect(tree.map((i: { label: string }) => i.label)).toEqual(['Top']);
    expect(tree[0].children[0].children[0].label).toBe('Low');
    // moving a leaf under a sibling's subtree is still fine
    expect((await call(t.app, 'POST', '/doing/planItems/sort', { token, body: { id: low.id, parentId: top.id, sort: 9 } })).statusCode).toBe(200);
  });
});

describe('GET /doing/planItems/plan/:planId: the kept answer', () => {
  it('answers every change to the items at once, with an ETag, compressed as the client accepts', async () => {
    const c = makeChurch();
    const p = await plan(c);
    const token = c.token();
    const url = `/doing/planItems/plan/${p.id}`;
    const read = (headers: Record<string, string> = {}) => call(t.app, 'GET', url, { token, headers });
    expect((await read()).json()).toEqual([]);
    const header = await item(c, { planId: p.id, label: 'Worship', itemType: 'header' });
    const first = await read();
    expect(first.json().map((i: { label: string }) => i.label)).toEqual(['Worship']);
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    expect((await read({ 'if-none-match': etag })).statusCode).toBe(304);

    const song = await item(c, { planId: p.id, parentId: header.id, label: 'Song' });
    const second = await read({ 'if-none-match': etag });
    expect(second.statusCode).toBe(200);
    expect(second.json()[0].children.map((i: { label: string }) => i.label)).toEqual(['Song']);
    const edited = await call(t.app, 'POST', '/doing/planItems', { token, body: { id: song.id, planId: p.id, parentId: header.id, label: 'Hymn' } });
    expect(edited.statusCode).toBe(200);
    expect((await read()).json()[0].children.map((i: { label: string }) => i.label)).toEqual(['Hymn']);
    const presenter = await call(t.app, 'GET', `/doing/planItems/presenter/${c.churchId}/${p.id}`);
    expect(presenter.json()).toEqual((await read()).json());

    const br = await read({ 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual((await read()).json());
    const gz = await read({ 'accept-encoding': 'gzip' });
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString())).toEqual((await read()).json());

    expect((await call(t.app, 'DELETE', `/doing/planItems/${song.id}`, { token })).statusCode).toBe(200);
    expect((await read()).json()[0].children).toEqual([]);
    // another church asking for the same plan gets its own (empty) answer, never this one
    expect((await call(t.app, 'GET', url, { token: makeChurch().token() })).json()).toEqual([]);
    expect((await call(t.app, 'DELETE', `/doing/plans/${p.id}`, { token })).statusCode).toBe(200);
    expect((await read()).json()).toEqual([]);
  });
});

describe('GET /doing/planFeed/presenter/:churchId/:planId', () => {
  it('answers the plan items when there are some', async () => {
    const c = makeChurch();
    const p = await plan(c, { contentId: 'venue1' });
    await item(c, { planId: p.id, label: 'Own item' });
    const res = await call(t.app, 'GET', `/doing/planFeed/presenter/${c.churchId}/${p.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ planId: p.id, source: 'plan', items: [{ label: 'Own item' }] });
  });

  it('fills the items from the external lesson feed named by contentId when the plan has none', async () => {
    const c = makeChurch();
    const p = await plan(c, { contentId: 'venue1' });
    const res = await call(t.app, 'GET', `/doing/planFeed/presenter/${c.churchId}/${p.id}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.source).toBe('lessonFeed');
    expect(body.items.map((i: { label: string; itemType: string }) => [i.label, i.itemType])).toEqual([
      ['Welcome', 'header'],
      ['Video', 'header'],
    ]);
    expect(body.items[1].children[0]).toMatchObject({ itemType: 'lessonAction', label: 'play', description: 'Day one', seconds: 120, link: 'https://cdn.example/day1.mp4' });
    expect(t.server.seen.some((r) => r.path === '/venues/public/feed/venue1')).toBe(true);
  });

  it('answers 502 when the feed fails, and 404 for another church or an unknown plan', async () => {
    const c = makeChurch();
    const p = await plan(c, { contentId: 'venue1' });
    feedFails = true;
    try {
      const res = await call(t.app, 'GET', `/doing/planFeed/presenter/${c.churchId}/${p.id}`);
      expect(res.statusCode).toBe(502);
      expect(res.json().errors[0]).toMatch(/Lessons.church failed/);
    } finally {
      feedFails = false;
    }
    expect((await call(t.app, 'GET', `/doing/planFeed/presenter/${randomUUID()}/${p.id}`)).statusCode).toBe(404);
    const none = await plan(c);
    expect((await call(t.app, 'GET', `/doing/planFeed/presenter/${c.churchId}/${none.id}`)).json()).toMatchObject({ source: 'none', items: [] });
  });
});
