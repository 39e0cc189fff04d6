import type { FastifyInstance } from 'fastify';
import { Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What a process can say about its job queue: the outbox's rows by state (`Queue.depth`). */
export interface QueueDepthSource {
  depth(): Promise<Record<'pending' | 'sent' | 'failed', number>>;
}

/**
 * A Prometheus registry for one deployable (an API, a worker, the gateway): Node's default metrics, among them
 * `nodejs_eventloop_lag_seconds` and its percentiles, and, given a queue, `job_outbox_jobs{state}` (jobs waiting
 * to be handed over, handed over and unconfirmed, given up), read from the database at scrape time.
 */
export function createMetrics(opts: { queue?: () => QueueDepthSource | undefined } = {}): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  if (opts.queue) {
    const source = opts.queue;
    // One read of the outbox per scrape, shared by the two gauges (a scrape starts every collect at once).
    let read: Promise<Record<string, number> | undefined> | undefined;
    const depth = () => {
      if (!read) {
        const current = Promise.resolve(source()?.depth()).catch(() => undefined);
        read = current;
        void current.finally(() => read === current && (read = undefined));
      }
      return read;
    };
    new Gauge({
      name: 'job_outbox_jobs',
      help: 'Jobs in this module’s outbox by state (pending: not yet handed to the queue; sent: handed over, not yet confirmed; failed: attempts spent)',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        const found = await depth();
        // When the outbox cannot be read, no values rather than old ones (job_outbox_readable says why).
        this.reset();
        if (found) for (const [state, n] of Object.entries(found)) this.set({ state }, n);
      },
    });
    new Gauge({
      name: 'job_outbox_readable',
      help: '1 when this scrape read the outbox’s depth from the database, 0 when it could not (job_outbox_jobs then has no values)',
      registers: [registry],
      async collect() {
        this.set((await depth()) ? 1 : 0);
      },
    });
  }
  return registry;
}

/** `http_request_duration_seconds{method,route,status}` for every request of a Fastify app. */
export function timeRequests(app: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    duration.observe({ method: req.method, route: req.routeOptions.url ?? 'unknown', status: reply.statusCode }, reply.elapsedTime / 1000);
  });
}
