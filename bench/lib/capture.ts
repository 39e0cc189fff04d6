import { createRequire } from 'node:module';
import type { Exec } from '../seed';
import type { ExplainRequest, ExplainResult } from './ipc';

interface Captured {
  /** module for PGlite, database name for PostgreSQL */
  source: string;
  text: string;
  params: unknown[];
}

type QueryFn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Records the SQL the services run while one request is in flight, then runs `EXPLAIN (ANALYZE, BUFFERS)`
 * of each SELECT with the same parameters: the plans of the real queries, not of a rewrite.
 */
export class QueryCapture {
  private capturing = false;
  private captured: Captured[] = [];

  private lastQueryAt = 0;
  private inflight = 0;

  private record(source: string, args: unknown[]) {
    this.lastQueryAt = Date.now();
    if (!this.capturing) return;
    const [first, second] = args as [string | { text: string; values?: unknown[] }, unknown];
    const text = typeof first === 'string' ? first : first?.text;
    const params = Array.isArray(second) ? second : typeof first === 'object' && Array.isArray(first?.values) ? first.values : [];
    if (typeof text === 'string') this.captured.push({ source, text, params });
  }

  /** Hooks `pg`'s Client (the instance the services load) so every pooled connection reports its queries. */
  patchPg(): void {
    const pg = createRequire(require.resolve('@church/common'))('pg') as { Client: { prototype: { query: QueryFn } } };
    const original = pg.Client.prototype.query;
    const track = (source: string, args: unknown[], run: (args: unknown[]) => unknown) => this.track(source, args, run);
    pg.Client.prototype.query = function (this: { database?: string }, ...args: unknown[]) {
      return track(`db:${this.database ?? ''}`, args, (a) => original.apply(this, a));
    } as QueryFn;
  }

  /** Records a query and counts it in flight until its callback or promise settles. */
  private track(source: string, args: unknown[], run: (args: unknown[]) => unknown): unknown {
    this.record(source, args);
    this.inflight++;
    const done = () => {
      this.inflight--;
      this.lastQueryAt = Date.now();
    };
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      const callback = last as (...result: unknown[]) => unknown;
      return run([
        ...args.slice(0, -1),
        (...result: unknown[]) => {
          done();
          return callback(...result);
        },
      ]);
    }
    const result = run(args) as { then?: (ok: () => void, fail: () => void) => void } | undefined;
    if (typeof result?.then === 'function') result.then(done, done);
    else done();
    return result;
  }

  /** Hooks one PGlite instance; answers an executor that bypasses the hook (for the seed and the plans). */
  patchPglite(module: string, client: Exec): Exec {
    const target = client as unknown as { query: QueryFn };
    const original = target.query.bind(client);
    target.query = (...args: unknown[]) => this.track(module, args, (a) => original(...a));
    return { query: (text, params) => original(text, params) as ReturnType<Exec['query']> };
  }

  /**
   * Requests of a finished load run may still be queued in the fleet (the load generator closed its sockets,
   * the handlers run on): waits until no query is in flight or has ended for 300 ms and this process used
   * under a fifth of a core for 300 ms, at most 60 s; answers how long it waited.
   */
  async quiet(): Promise<number> {
    const started = Date.now();
    let calm = 0;
    let cpu = process.cpuUsage();
    while (calm < 3 && Date.now() - started < 60_000) {
      await new Promise((r) => setTimeout(r, 100));
      const used = process.cpuUsage(cpu);
      cpu = process.cpuUsage();
      const idle = (used.user + used.system) / 1000 < 20 && this.inflight === 0 && Date.now() - this.lastQueryAt >= 300;
      calm = idle ? calm + 1 : 0;
    }
    return Date.now() - started;
  }

  async explain(baseUrl: string, requests: ExplainRequest[], dbs: Partial<Record<string, Exec>>): Promise<ExplainResult[]> {
    const results: ExplainResult[] = [];
    await this.quiet();
    for (const req of requests) {
      this.captured = [];
      this.capturing = true;
      let status = 0;
      try {
        const res = await fetch(baseUrl + req.path, {
          method: req.method,
          headers: { ...(req.token ? { authorization: `Bearer ${req.token}` } : {}), ...(req.body ? { 'content-type': 'application/json' } : {}) },
          body: req.body,
          // a request that never answers (one waiting on a lock) must not hold the whole EXPLAIN section
          signal: AbortSignal.timeout(60_000),
        });
        status = res.status;
        await res.arrayBuffer();
      } catch (err) {
        results.push({ name: req.name, status, queries: [], error: String(err) });
        continue;
      } finally {
        this.capturing = false;
      }
      const result: ExplainResult = { name: req.name, status, queries: [] };
      for (const q of this.captured.filter((c) => /^\s*(select|with)\b/i.test(c.text))) {
        // the source is `db:bench_<module>` (PostgreSQL) or the module's name (PGlite)
        const module = Object.keys(dbs).find((m) => q.source === m || q.source.endsWith(`_${m}`));
        if (!module) continue;
        try {
          const { rows } = await dbs[module]!.query(`explain (analyze, buffers) ${q.text}`, q.params);
          result.queries.push({ module, sql: q.text, params: q.params, plan: rows.map((r) => String(Object.values(r)[0])).join('\n') });
        } catch (err) {
          result.queries.push({ module, sql: q.text, params: q.params, plan: `explain failed: ${String(err)}` });
        }
      }
      results.push(result);
    }
    return results;
  }
}
