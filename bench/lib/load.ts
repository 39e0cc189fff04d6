import path from 'node:path';
import autocannon from 'autocannon';

/** autocannon's `setupClient` that keeps only failures' bodies (see the file); a path for worker threads. */
const ERROR_BODIES_ONLY = path.join(__dirname, 'error-bodies-only.cjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const errorBodiesOnly = require(ERROR_BODIES_ONLY) as (client: autocannon.Client) => void;

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
  /**
   * load-generator threads: one by default; more where reading the answers is the generator's bottleneck (a
   * 0.7 MB answer keeps one autocannon thread at 100% CPU near 100 req/s). Percentiles then come from
   * autocannon's own 1 ms histogram, since per-response hooks do not cross into its worker threads.
   */
  workers?: number;
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
  if (opts.workers && opts.workers > 1) {
    // Functions do not cross into worker threads: no per-response hook, no per-request variation.
    const { onResponse: _hook, setupRequest: _vary, ...plain } = request;
    const threaded = { ...base, requests: [plain], workers: opts.workers, setupClient: ERROR_BODIES_ONLY as unknown as autocannon.Options['setupClient'] };
    if (opts.warmup > 0) await autocannon({ ...threaded, duration: opts.warmup });
    const result = await autocannon({ ...threaded, duration: opts.duration });
    return summary(result, (q) => (q === 0.5 ? result.latency.p50 : result.latency.p99), result.latency.max, samples);
  }
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
