import autocannon from 'autocannon';

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
  /** seconds of unrecorded load first (JIT, pools, caches), 0 for none */
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
  const options = {
    url: opts.url,
    connections: opts.connections,
    duration: opts.duration,
    requests: [request],
    timeout: 30,
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
    // autocannon ≥ 7.11 takes a warm-up phase; not in @types/autocannon yet
    ...(opts.warmup > 0 ? { warmup: { connections: opts.connections, duration: opts.warmup } } : {}),
  } as autocannon.Options;
  const result = await autocannon(options);
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s?.count ?? 0]));
  return {
    rps: round(result.requests.average),
    p50: round(result.latency.p50),
    p99: round(result.latency.p99),
    max: round(result.latency.max),
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
