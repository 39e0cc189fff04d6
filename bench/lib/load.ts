import autocannon from 'autocannon';

/** The part of autocannon's per-connection queue of answers being read that `errorBodiesOnly` replaces. */
interface AnswerQueue {
  peek(): { body: string; keepBody?: boolean } | undefined;
  setHeaders(headers: { statusCode: number }): void;
  addBody(chunk: Buffer): void;
}

/**
 * A connection's setup: keep the body of non-2xx answers only (for the report's samples).
 *
 * autocannon appends every chunk of every answer to a string (`body += chunk`). For a compressed answer that is
 * UTF-8 decoding of binary data, which is slow: against a bare Fastify sending 9 KB, one autocannon thread read
 * 55–63k answers/s of ASCII but 8.5–9.1k/s of random bytes (a brotli body is that). The groups list (8.9 KB of
 * brotli) and the whole people list were measuring the load generator, which also took CPU from the fleet. A
 * browser or an HTTP library keeps the bytes as they come.
 */
function errorBodiesOnly(client: autocannon.Client): void {
  const queue = (client as unknown as { pipelinedRequests?: AnswerQueue }).pipelinedRequests;
  // It reaches into autocannon (8.x): a release that moves this queue must fail here, not measure bodies again.
  if (typeof queue?.setHeaders !== 'function' || typeof queue.addBody !== 'function') throw new Error('autocannon has no pipelinedRequests queue: update errorBodiesOnly');
  const setHeaders = queue.setHeaders.bind(queue);
  queue.setHeaders = (headers) => {
    setHeaders(headers);
    const answer = queue.peek();
    if (answer) answer.keepBody = headers.statusCode < 200 || headers.statusCode >= 300;
  };
  queue.addBody = (chunk) => {
    const answer = queue.peek();
    if (answer?.keepBody) answer.body += chunk;
  };
}

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  token?: string;
  /**
   * A request that varies (another person, another batch of check-ins): `count` distinct ones, `of(n)` for n
   * from 0. Each is built once, before the run, and the connections take them in turn (see `runLoad`).
   */
  variants?: {
    count: number;
    of: (n: number) => { path?: string; body?: string };
    /**
     * Each variant is sent once across the warm-up and the measured run, in order (wrapping after `count`): for
     * requests that change what the next one finds (an autofill fills its plan's positions). These are built as
     * they are sent (autocannon's `setupRequest`), which costs the generator some CPU per request.
     */
    unique?: boolean;
  };
}

export interface LoadOptions {
  url: string;
  connections: number;
  /** seconds */
  duration: number;
  /** seconds of unrecorded load first (JIT, pools, caches: a separate run), 0 for none */
  warmup: number;
  /** requests per second over all connections (a probe), unlimited when absent */
  overallRate?: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  total: number;
  non2xx: number;
  /** connection errors and timeouts */
  errors: number;
  statusCodes: Record<string, number>;
  /** the first few non-2xx answers, for the report */
  samples: string[];
  /** unique variants: how many were sent, warm-up included (more than `count` means some were sent twice) */
  variantsSent?: number;
}

export function headersFor(req: Pick<LoadRequest, 'token' | 'body'>): Record<string, string> {
  return {
    // What every browser and HTTP library sends; only answers prepared compressed (list snapshots) use it.
    'accept-encoding': 'gzip, deflate, br',
    ...(req.token ? { authorization: `Bearer ${req.token}` } : {}),
    ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
  };
}

/** One autocannon run (programmatic API) of one request shape. */
export async function runLoad(req: LoadRequest, opts: LoadOptions): Promise<LoadResult> {
  const samples: string[] = [];
  const request = (shape: Pick<LoadRequest, 'path' | 'body'>): autocannon.Request => ({
    method: req.method,
    path: shape.path,
    headers: headersFor({ token: req.token, body: shape.body }),
    ...(shape.body !== undefined ? { body: shape.body } : {}),
    onResponse: (status: number, body: string) => {
      if ((status < 200 || status >= 300) && samples.length < 3) samples.push(`${status} ${String(body).slice(0, 300)}`);
    },
  });
  // Variants are built before the run, not per request: autocannon's `setupRequest` rebuilds a request's bytes
  // each time it is sent, which cost the generator about 20 µs per people/:id (42 µs of its CPU per request
  // against 24 µs for an unvarying read) on the two cores it shares with the fleet. Connection k takes variants
  // k, k + connections, ... in turn, so concurrent requests ask for different people, and each variant is built
  // once in all.
  const variants = req.variants;
  let connection = 0;
  let sent = 0;
  const unique = variants?.unique
    ? {
        setupRequest: (r: autocannon.Request) => {
          const v = variants.of(sent++ % variants.count);
          return { ...r, ...(v.path !== undefined ? { path: v.path } : {}), ...(v.body !== undefined ? { body: v.body } : {}) };
        },
      }
    : {};
  const ownVariants = (client: autocannon.Client) => {
    if (!variants || variants.unique) return;
    const own: autocannon.Request[] = [];
    for (let n = connection++ % opts.connections; n < variants.count; n += opts.connections) own.push(request({ ...req, ...variants.of(n) }));
    if (own.length) client.setRequests(own);
  };
  const base = {
    url: opts.url,
    connections: opts.connections,
    requests: [{ ...request(variants ? { ...req, ...variants.of(0) } : req), ...unique }],
    timeout: 30,
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
  };
  const setup = (client: autocannon.Client) => {
    errorBodiesOnly(client);
    ownVariants(client);
  };
  if (opts.warmup > 0) await autocannon({ ...base, duration: opts.warmup, setupClient: setup });
  // autocannon's own histogram has 1 ms resolution; the targets are tens of milliseconds, so keep every
  // response time (fractional ms, 2xx or not) and take exact percentiles.
  const times: number[] = [];
  const result = await autocannon({
    ...base,
    duration: opts.duration,
    setupClient: (client) => {
      setup(client);
      client.on('response', (_status: number, _bytes: number, ms: number) => times.push(ms));
    },
  });
  times.sort((a, b) => a - b);
  const at = (q: number) => (times.length ? times[Math.min(times.length - 1, Math.floor(q * times.length))]! : 0);
  return { ...summary(result, at, times.at(-1) ?? 0, samples), ...(variants?.unique ? { variantsSent: sent } : {}) };
}

function summary(result: autocannon.Result, at: (q: number) => number, max: number, samples: string[]): LoadResult {
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s?.count ?? 0]));
  return {
    rps: round(result.requests.average),
    p50: round(at(0.5)),
    p99: round(at(0.99)),
    max: round(max),
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    statusCodes,
    samples,
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
