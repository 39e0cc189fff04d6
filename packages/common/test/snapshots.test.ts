import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';
import { createSnapshots } from '../src';

/** `get` is given its version: the store's own version lookup is for `send` (route tests cover it). */
const unused = async () => {
  throw new Error('not used by get');
};

/** A build that counts its calls and answers `text`. */
function builder(text: string) {
  return jest.fn(async () => text);
}

/** Bytes a snapshot of `text` holds: the body, its gzipped and its brotli copy (the module's settings for small bodies). */
const brotli = (text: string) =>
  brotliCompressSync(text, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(text), [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
  });
const cost = (text: string) => Buffer.byteLength(text) + gzipSync(text).length + brotli(text).length;

describe('createSnapshots().get', () => {
  it('answers the same snapshot for the same key and version without building again', async () => {
    const snapshots = createSnapshots({ version: unused, maxBytes: 1_000_000 });
    const build = builder('[{"id":1}]');
    const first = await snapshots.get('people\nchurch-a\nall', '7', build);
    const second = await snapshots.get('people\nchurch-a\nall', '7', build);
    expect(build).toHaveBeenCalledTimes(1);
    expect(second).toBe(first);
    expect(first.version).toBe('7');
    expect(first.body.toString()).toBe('[{"id":1}]');
    expect(gunzipSync(first.gzipped).toString()).toBe('[{"id":1}]');
    expect(brotliDecompressSync(first.brotli).toString()).toBe('[{"id":1}]');
    expect(first.tag).toMatch(/^[\w-]{22}$/);
    expect(snapshots.size()).toBe(cost('[{"id":1}]'));
  });

  it('rebuilds for a new version, with a new tag, and holds only the newest', async () => {
    const snapshots = createSnapshots({ version: unused, maxBytes: 1_000_000 });
    const old = await snapshots.get('k', '1', builder('["old"]'));
    const build = builder('["newer one"]');
    const fresh = await snapshots.get('k', '2', build);
    expect(build).toHaveBeenCalledTimes(1);
    expect(fresh.body.toString()).toBe('["newer one"]');
    expect(fresh.tag).not.toBe(old.tag);
    expect(snapshots.size()).toBe(cost('["newer one"]'));
    expect(await snapshots.get('k', '2', build)).toBe(fresh);
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('tags differ by key at the same version (one church’s ETag never matches another’s)', async () => {
    const snapshots = createSnapshots({ version: unused, maxBytes: 1_000_000 });
    const a = await snapshots.get('people\nchurch-a\nall', '1', builder('[]'));
    const b = await snapshots.get('people\nchurch-b\nall', '1', builder('[]'));
    const members = await snapshots.get('people\nchurch-a\nmembers', '1', builder('[]'));
    expect(new Set([a.tag, b.tag, members.tag]).size).toBe(3);
  });

  it('builds once for concurrent requests of the same key and version', async () => {
    const snapshots = createSnapshots({ version: unused, maxBytes: 1_000_000 });
    let finish!: (text: string) => void;
    const build = jest.fn(() => new Promise<string>((resolve) => (finish = resolve)));
    const pending = [snapshots.get('k', '1', build), snapshots.get('k', '1', build), snapshots.get('k', '1', build)];
    expect(build).toHaveBeenCalledTimes(1);
    finish('["once"]');
    const [a, b, c] = await Promise.all(pending);
    expect(build).toHaveBeenCalledTimes(1);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(a!.body.toString()).toBe('["once"]');
  });

  it('evicts the least recently used snapshot past maxBytes, and size() follows', async () => {
    const texts = { a: `["${'a'.repeat(60)}"]`, b: `["${'b'.repeat(70)}"]`, c: `["${'c'.repeat(80)}"]` };
    // Any two fit, all three do not.
    const snapshots = createSnapshots({ version: unused, maxBytes: cost(texts.a) + cost(texts.b) + cost(texts.c) - 1 });
    const build = { a: builder(texts.a), b: builder(texts.b), c: builder(texts.c) };
    await snapshots.get('a', '1', build.a);
    await snapshots.get('b', '1', build.b);
    expect(snapshots.size()).toBe(cost(texts.a) + cost(texts.b));
    await snapshots.get('a', '1', build.a); // a is now the most recently used: b goes first
    await snapshots.get('c', '1', build.c);
    expect(snapshots.size()).toBe(cost(texts.a) + cost(texts.c));
    await snapshots.get('a', '1', build.a);
    await snapshots.get('c', '1', build.c);
    expect(build.a).toHaveBeenCalledTimes(1);
    expect(build.c).toHaveBeenCalledTimes(1);
    await snapshots.get('b', '1', build.b);
    expect(build.b).toHaveBeenCalledTimes(2);
    // b came back as the newest; a was then the least recently used.
    expect(snapshots.size()).toBe(cost(texts.c) + cost(texts.b));
  });

  it('serves a body larger than maxBytes without keeping it or evicting the others', async () => {
    const small = '["small"]';
    const big = JSON.stringify(Array.from({ length: 200 }, (_, i) => `person-${i}`));
    const snapshots = createSnapshots({ version: unused, maxBytes: cost(small) + 100 });
    await snapshots.get('small', '1', builder(small));
    const build = builder(big);
    const first = await snapshots.get('big', '1', build);
    expect(first.body.toString()).toBe(big);
    expect(gunzipSync(first.gzipped).toString()).toBe(big);
    expect(snapshots.size()).toBe(cost(small));
    await snapshots.get('big', '1', build);
    expect(build).toHaveBeenCalledTimes(2);
    const smallBuild = builder(small);
    await snapshots.get('small', '1', smallBuild);
    expect(smallBuild).not.toHaveBeenCalled();
  });

  it('keeps nothing when maxBytes is 0 (snapshots turned off) and still answers', async () => {
    const snapshots = createSnapshots({ version: unused, maxBytes: 0 });
    const build = builder('[1,2,3]');
    expect((await snapshots.get('k', '1', build)).body.toString()).toBe('[1,2,3]');
    expect((await snapshots.get('k', '1', build)).body.toString()).toBe('[1,2,3]');
    expect(build).toHaveBeenCalledTimes(2);
    expect(snapshots.size()).toBe(0);
  });

  it('does not keep a failed build: every waiter sees the error and the next call builds again', async () => {
    const snapshots = createSnapshots({ version: unused, maxBytes: 1_000_000 });
    const failing = jest.fn(async (): Promise<string> => {
      throw new Error('database went away');
    });
    const waiters = [snapshots.get('k', '1', failing), snapshots.get('k', '1', failing)];
    await expect(waiters[0]).rejects.toThrow('database went away');
    await expect(waiters[1]).rejects.toThrow('database went away');
    expect(failing).toHaveBeenCalledTimes(1);
    expect(snapshots.size()).toBe(0);
    const build = builder('["recovered"]');
    const snapshot = await snapshots.get('k', '1', build);
    expect(build).toHaveBeenCalledTimes(1);
    expect(snapshot.body.toString()).toBe('["recovered"]');
    expect(snapshots.size()).toBe(cost('["recovered"]'));
  });

  it('keeps the newer version when a slow build of an older one finishes last', async () => {
    const snapshots = createSnapshots({ version: unused, maxBytes: 1_000_000 });
    let finishOld!: (text: string) => void;
    const slowOld = snapshots.get('k', '1', () => new Promise<string>((resolve) => (finishOld = resolve)));
    const fresh = await snapshots.get('k', '2', builder('["new"]'));
    finishOld('["old"]');
    await slowOld;
    const build = builder('["rebuilt"]');
    expect(await snapshots.get('k', '2', build)).toBe(fresh);
    expect(build).not.toHaveBeenCalled();
  });

  it('names the code in its tags: another build id, another tag for the same key and version', async () => {
    const a = await createSnapshots({ version: unused, maxBytes: 1_000_000, buildId: 'rev-a' }).get('k', '1', builder('[]'));
    const b = await createSnapshots({ version: unused, maxBytes: 1_000_000, buildId: 'rev-b' }).get('k', '1', builder('[]'));
    expect(a.tag).not.toBe(b.tag);
  });
});
