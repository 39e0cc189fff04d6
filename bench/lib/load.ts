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
  /** varies the request per call (n counts from 0): another person, another batch of check-ins */
  vary?: (n: number) => { path?: string; body?: string };
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
  let n = 0;
  const request: autocannon.Request = {
    method: req.method,
    path: req.path,
    headers: headersFor(req),
    ...(req.body !== undefined ? { body: req.body } : {}),
    ...(req.vary ? { setupRequest: (r: autocannon.Request) => ({ ...r, ...req.vary!(n++) }) } : {}),
    onResponse: (status: number, body: string) => {
      if ((status < 200 || status >= 300) && samples.length < 3) samples.push(`${status} ${String(body).slice(0, 300)}`);
    },
  };
  const base = {
    url: opts.url,
    connections: opts.connections,
    requests: [request],
    timeout: 30,
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
  };
  if (opts.warmup > 0) await autocannon({ ...base, duration: opts.warmup, setupClient: errorBodiesOnly });
  // autocannon's own histogram has 1 ms resolution; the targets are tens of milliseconds, so keep every
  // response time (fractional ms, 2xx or not) and take exact percentiles.
  const times: number[] = [];
  const result = await autocannon({
    ...base,
    duration: opts.duration,
    setupClient: (client) => {
      errorBodiesOnly(client);
      client.on('response', (_status: number, _bytes: number, ms: number) => times.push(ms));
    },
  });
  times.sort((a, b) => a - b);
  const at = (q: number) => (times.length ? times[Math.min(times.length - 1, Math.floor(q * times.length))]! : 0);
  return summary(result, at, times.at(-1) ?? 0, samples);
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
