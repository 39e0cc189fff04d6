import { batched, batchedReads, coalesced, isUuid, keptPer } from '../src';

/** A load whose every call waits until the test lets it answer; `calls` records the keys of each. */
function gatedLoad() {
  const calls: string[][] = [];
  const gates: Array<(fail?: Error) => void> = [];
  const load = jest.fn(
    (keys: string[]) =>
      new Promise<Array<string | undefined>>((resolve, reject) => {
        calls.push([...keys]);
        gates.push((fail) => (fail ? reject(fail) : resolve(keys.map((k) => (k === 'none' ? undefined : `value of ${k}`)))));
      }),
  );
  /** lets the oldest query still out answer */
  const open = (fail?: Error) => gates.shift()!(fail);
  return { load, calls, open };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('batched', () => {
  it('reads the keys asked in one turn with one query, each distinct key once, and answers each caller its own', async () => {
    const { load, calls, open } = gatedLoad();
    const read = batched(load);
    const answers = Promise.all([read('a'), read('b'), read('a'), read('none')]);
    await turn();
    expect(calls).toEqual([['a', 'b', 'none']]);
    open();
    expect(await answers).toEqual(['value of a', 'value of b', 'value of a', undefined]);
  });

  it('never answers a key from a query that was already out when it was asked: it waits for the next one', async () => {
    const { load, calls, open } = gatedLoad();
    const read = batched(load);
    const first = read('a');
    await turn();
    // Asked while the first query is out: they go out together, after it.
    const later = [read('a'), read('c')];
    await turn();
    expect(calls).toEqual([['a']]);
    open();
    expect(await first).toBe('value of a');
    await turn();
    expect(calls).toEqual([['a'], ['a', 'c']]);
    open();
    expect(await Promise.all(later)).toEqual(['value of a', 'value of c']);
  });

  it('rejects every caller of a failed query, and the next query goes out as usual', async () => {
    const { load, open } = gatedLoad();
    const read = batched(load);
    const failed = Promise.allSettled([read('a'), read('b')]);
    await turn();
    open(new Error('connection lost'));
    expect((await failed).map((r) => r.status === 'rejected' && (r.reason as Error).message)).toEqual(['connection lost', 'connection lost']);
    const again = read('a');
    await turn();
    open();
    expect(await again).toBe('value of a');
  });

  it('splits a batch at maxBatch and lets inFlight queries out at once', async () => {
    const { load, calls, open } = gatedLoad();
    const read = batched(load, { maxBatch: 2, inFlight: 2 });
    const answers = Promise.all(['a', 'b', 'c', 'd', 'e'].map(read));
    await turn();
    expect(calls).toEqual([['a', 'b'], ['c', 'd']]);
    open();
    await turn();
    expect(calls).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    open();
    open();
    expect(await answers).toEqual(['a', 'b', 'c', 'd', 'e'].map((k) => `value of ${k}`));
  });

  it('names keys with `id`: equal names are one key', async () => {
    const load = jest.fn(async (keys: Array<{ n: number }>) => keys.map((k) => k.n * 10));
    const read = batched(load, { id: (k) => String(k.n) });
    expect(await Promise.all([read({ n: 1 }), read({ n: 1 }), read({ n: 2 })])).toEqual([10, 10, 20]);
    expect(load).toHaveBeenCalledTimes(1);
    expect(load.mock.calls[0]![0]).toEqual([{ n: 1 }, { n: 2 }]);
  });
});

describe('coalesced', () => {
  it('runs once for callers of the same key in one turn, apart for other keys, and again for a caller who came while it ran', async () => {
    const gates: Array<() => void> = [];
    const run = jest.fn((key: string) => new Promise<string>((resolve) => gates.push(() => resolve(`sheet ${key} #${run.mock.calls.length}`))));
    const sheet = coalesced(run);
    const first = Promise.all([sheet('s1'), sheet('s1'), sheet('s2')]);
    await turn();
    expect(run.mock.calls).toEqual([['s1'], ['s2']]);
    const late = sheet('s1');
    await turn();
    expect(run).toHaveBeenCalledTimes(2);
    gates.shift()!();
    gates.shift()!();
    expect(await first).toEqual(['sheet s1 #2', 'sheet s1 #2', 'sheet s2 #2']);
    await turn();
    expect(run.mock.calls).toEqual([['s1'], ['s2'], ['s1']]);
    gates.shift()!();
    expect(await late).toBe('sheet s1 #3');
  });

  it('hands a failure to every caller of that run only', async () => {
    let fail = true;
    const sheet = coalesced(async (key: string) => {
      if (fail) throw new Error(`no ${key}`);
      return key;
    });
    const failed = await Promise.allSettled([sheet('a'), sheet('a')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await sheet('a')).toBe('a');
  });
});

describe('batchedReads', () => {
  it('keeps one queue per database handle: keys of two handles never share a query', async () => {
    const load = jest.fn(async (db: { name: string }, keys: string[]) => keys.map((k) => `${db.name}:${k}`));
    const read = batchedReads(load);
    const [one, two] = [{ name: 'one' }, { name: 'two' }];
    expect(await Promise.all([read(one, 'a'), read(two, 'a'), read(one, 'b')])).toEqual(['one:a', 'two:a', 'one:b']);
    expect(load.mock.calls.map(([db, keys]) => [db.name, keys])).toEqual([
      ['one', ['a', 'b']],
      ['two', ['a']],
    ]);
  });
});

it('isUuid takes UUID text of any version and case, and nothing else', () => {
  expect(isUuid('00000000-0000-4000-8000-000000000001')).toBe(true);
  expect(isUuid('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11')).toBe(true);
  expect(isUuid('')).toBe(false);
  expect(isUuid('00000000-0000-4000-8000-00000000000')).toBe(false);
  expect(isUuid("x' or 1=1")).toBe(false);
});

describe('keptPer', () => {
  it('keeps a cache of its own per owner, drops the least recently used past max, and forgets after ttl', async () => {
    const kept = keptPer<object, string>({ max: 2, ttl: 50 });
    const [a, b] = [{}, {}];
    kept(a).set('x', 'a');
    expect(kept(a).get('x')).toBe('a');
    expect(kept(b).get('x')).toBeUndefined();
    kept(a).set('y', 'a');
    kept(a).get('x');
    kept(a).set('z', 'a');
    expect([...kept(a).keys()].sort()).toEqual(['x', 'z']);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(kept(a).get('x')).toBeUndefined();
  });
});
