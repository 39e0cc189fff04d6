import { LRUCache } from 'lru-cache';

/**
 * Point reads coalesced into one query per batch: every request that arrives while the previous query of the
 * same kind is out joins the next one. Under load, twenty concurrent `GET /people/:id` become one
 * `where id = any($1)`, a round trip and a statement for all of them instead of one each; alone, a read goes
 * out at once (after the current turn of the event loop, which only gathers what already arrived).
 *
 * Never stale: a key is always read by a query sent after it was asked for, never answered from a query that
 * was already out when it arrived (that query may have started before a write the caller has seen commit).
 * So a batch is exactly as fresh as a query of its own, and read-your-writes holds across replicas.
 *
 * Only for reads outside a transaction: the batch runs on the pool, not on a caller's transaction.
 */
export interface BatchOptions<K> {
  /** names a key; equal names are read once per batch (default `String(key)`) */
  id?: (key: K) => string;
  /** queries of this loader out at once; more asked meanwhile wait for the next batch (default 1) */
  inFlight?: number;
  /** keys per query at most (default 500) */
  maxBatch?: number;
}

interface Batch<K, V> {
  keys: K[];
  slots: Map<string, number>;
  waiters: Array<Array<{ resolve: (value: V | undefined) => void; reject: (err: unknown) => void }>>;
}

/**
 * `load(keys)` answers one value per key, in the keys' order (`undefined` for none); the loader answers each
 * caller's own key.
 */
export function batched<K, V>(load: (keys: K[]) => Promise<Array<V | undefined>>, options: BatchOptions<K> = {}): (key: K) => Promise<V | undefined> {
  const idOf = options.id ?? String;
  const inFlight = options.inFlight ?? 1;
  const maxBatch = options.maxBatch ?? 500;
  const waiting: Array<Batch<K, V>> = [];
  let running = 0;
  let scheduled = false;

  const send = (batch: Batch<K, V>) => {
    running++;
    const settle = (each: (waiter: Batch<K, V>['waiters'][number][number], slot: number) => void) => {
      batch.waiters.forEach((list, slot) => list.forEach((waiter) => each(waiter, slot)));
      running--;
      next();
    };
    load(batch.keys).then(
      (values) => settle((waiter, slot) => waiter.resolve(values[slot])),
      (err: unknown) => settle((waiter) => waiter.reject(err)),
    );
  };

  function next() {
    while (running < inFlight && waiting.length) send(waiting.shift()!);
  }

  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      let batch = waiting.at(-1);
      if (!batch || batch.keys.length >= maxBatch) waiting.push((batch = { keys: [], slots: new Map(), waiters: [] }));
      const id = idOf(key);
      let slot = batch.slots.get(id);
      if (slot === undefined) {
        slot = batch.keys.push(key) - 1;
        batch.slots.set(id, slot);
        batch.waiters.push([]);
      }
      batch.waiters[slot]!.push({ resolve, reject });
      if (running < inFlight && !scheduled) {
        // Idle: go out once this turn's arrivals are in (they are in the same batch by then).
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          next();
        });
      }
    });
}

/**
 * The same work shared by the callers who ask for it at the same time (requests collapsed, as a caching proxy
 * does), under `batched`'s rule: a caller joins the next run, never one already under way, so what it gets was
 * computed after it asked. Callers share the answer: none may change it.
 */
export function coalesced<K, V>(run: (key: K) => Promise<V>, id: (key: K) => string = String): (key: K) => Promise<V> {
  const runs = new Map<string, { read: (key: K) => Promise<V | undefined>; callers: number }>();
  return async (key) => {
    const name = id(key);
    let entry = runs.get(name);
    if (!entry) runs.set(name, (entry = { read: batched<K, V>(async ([only]) => [await run(only!)]), callers: 0 }));
    entry.callers++;
    try {
      return (await entry.read(key)) as V;
    } finally {
      if (--entry.callers === 0) runs.delete(name);
    }
  };
}

/** A UUID's text (any version): the loaders send only these, so one bad key cannot fail a whole batch. */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

/**
 * `batched` over a database handle given with each call: one loader, so one queue, per handle (the pool of
 * a module, or a test's own database).
 */
export function batchedReads<D extends object, K, V>(
  load: (db: D, keys: K[]) => Promise<Array<V | undefined>>,
  options?: BatchOptions<K>,
): (db: D, key: K) => Promise<V | undefined> {
  const loaders = new WeakMap<D, (key: K) => Promise<V | undefined>>();
  return (db, key) => {
    let loader = loaders.get(db);
    if (!loader) loaders.set(db, (loader = batched((keys) => load(db, keys), options)));
    return loader(key);
  };
}

/**
 * A small cache per owner (a module's app or deps: tests build several in one process), each of at most `max`
 * entries, least recently used out first, kept `ttl` ms when given: what a module remembers of another system for
 * a moment (a church's name, a verified gateway) or of its own recent work, without one cache shared by apps.
 */
export function keptPer<O extends object, V extends NonNullable<unknown>>(options: { max: number; ttl?: number }): (owner: O) => LRUCache<string, V> {
  const caches = new WeakMap<O, LRUCache<string, V>>();
  return (owner) => {
    let cache = caches.get(owner);
    if (!cache) caches.set(owner, (cache = new LRUCache<string, V>(options)));
    return cache;
  };
}
