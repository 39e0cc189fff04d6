import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Where a request's CPU time goes, from the V8 CPU profiles `BENCH_CPU_PROF=<dir> pnpm bench --only=<scenario>`
 * leaves (one per process of the deployment):
 *
 *   npx tsx bench/profile-summary.ts <dir or .cpuprofile files> [--requests=N] [--top=15]
 *
 * Each profile is cut to its busiest stretch (the scenario's load; start-up and shutdown fall outside it), and
 * every sample of it is put in one layer: from the sampled function up its stack, the first frame that belongs
 * to a known layer (the gateway's proxy, the auth hook, rate limits, serialization, validation, metrics,
 * logging, queries, the route's own code, Fastify, ...) decides. Node's own frames and zod are passed through,
 * so `JSON.stringify` under the serializer counts as serialization and a socket write under `pg` as queries.
 * With `--requests` (the scenario's answers: its `total` in the run's JSON, plus the warm-up's) each layer is
 * also given in µs per request. V8 samples wall time on the JavaScript thread: `(idle)` is the loop waiting.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Layers, tried in this order on each frame from the sampled one upwards; the first match wins. */
const LAYERS: Array<[string, (f: CallFrame) => boolean]> = [
  ['auth hook (JWT verify, revocations, API keys, access check)', (f) => /packages\/auth\/src\/|fast-jwt|\/common\/src\/(revocations|api-keys)\.ts/.test(f.url) || (/common\/src\/service\.ts/.test(f.url) && /bearer|isRevoked/.test(f.functionName))],
  ['rate limits', (f) => /rate-limit|gateway\/src\/limits\.ts/.test(f.url)],
  ['metrics', (f) => /prom-client|common\/src\/metrics\.ts/.test(f.url)],
  ['logging', (f) => /pino|sonic-boom|thread-stream|common\/src\/logging\.ts/.test(f.url)],
  ['serialization (response schemas)', (f) => /fast-json-stringify/.test(f.url) || (/common\/src\/validation\.ts/.test(f.url) && /serializ|Serializ/.test(f.functionName)) || /fastify\/lib\/(reply|error-serializer)\.js/.test(f.url) && /serialize/i.test(f.functionName)],
  ['validation (zod)', (f) => /common\/src\/validation\.ts/.test(f.url) || /fastify\/lib\/validation\.js/.test(f.url)],
  ['kept answers (snapshots, compression)', (f) => /common\/src\/snapshots\.ts/.test(f.url)],
  ['queries (pg, drizzle)', (f) => /node_modules\/(\.pnpm\/)?(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+|drizzle-orm)[@/]|common\/src\/(db|rows)\.ts/.test(f.url)],
  ['gateway proxy (undici, its llhttp parser)', (f) => /undici|gateway\/src\/proxy\.ts|^wasm:/.test(f.url)],
  ['gateway hooks (CORS, request id, routing)', (f) => /@fastify\/cors|gateway\/src\/app\.ts/.test(f.url)],
  ['route, domain and repos', (f) => /services\/[a-z]+\/src\//.test(f.url)],
  ['other @church/common', (f) => /packages\/common\/src\//.test(f.url)],
  ['fastify (routing, hooks, reply)', (f) => /node_modules\/(\.pnpm\/)?(fastify|find-my-way|avvio|light-my-request|@fastify)[@/]/.test(f.url)],
  ['node http server and sockets', (f) => /^node:(_http|http|net|internal\/(http|streams|stream_base|js_stream|net|timers))/.test(f.url)],
];
// zod, caches and helpers count for whoever called them (the token cache is the auth hook's)
const PASS_THROUGH = (f: CallFrame) => f.url === '' || /node_modules\/(\.pnpm\/)?(zod|lru-cache|toad-cache|reusify|fastq)[@/]|tslib/.test(f.url) || (f.url.startsWith('node:') && !/^node:(_http|http|net)/.test(f.url));

function profilesIn(args: string[]): string[] {
  return args.flatMap((a) => (statSync(a).isDirectory() ? readdirSync(a).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(a, f)) : [a]));
}

/** Which deployable a profile is: the most sampled `gateway/src` or `services/<m>/src` file. */
function whose(profile: CpuProfile): string {
  const counts = new Map<string, number>();
  for (const node of profile.nodes) {
    const m = /\/(gateway)\/src\/|\/services\/([a-z]+)\/src\//.exec(node.callFrame.url);
    if (m) counts.set(m[1] ?? m[2]!, (counts.get(m[1] ?? m[2]!) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'unknown';
}

export interface Summary {
  process: string;
  file: string;
  windowMs: number;
  /** the load's stretch, in seconds from the profile's start */
  window: [number, number];
  busyMs: number;
  idleMs: number;
  layers: Array<{ layer: string; ms: number }>;
  top: Array<{ fn: string; ms: number }>;
}

export function summarize(file: string, topN = 15): Summary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const idleName = (n: ProfileNode) => n.callFrame.functionName === '(idle)';
  // sample times (µs from the start) and whether each is busy
  const times: number[] = [];
  let t = 0;
  for (const d of profile.timeDeltas) times.push((t += d));
  // The load's stretch: 250 ms buckets where requests are being handled (a sample under Fastify's router or
  // request handling), at least a twentieth of the busiest bucket's, gaps of up to 2 s bridged; the run with the most.
  // Start-up (module loading, which through tsx takes seconds) and the health checks before the load fall outside.
  const bucket = 250_000;
  const requestish = new Set<number>();
  // (the gateway hands each request to undici, whose callbacks run outside Fastify's handler)
  const gateway = whose(profile) === 'gateway';
  const isRequest = (n: ProfileNode) =>
    /fastify\/lib\/(handle-request|wrap-thenable)\.js/.test(n.callFrame.url) ||
    (gateway && /gateway\/src\/proxy\.ts|node_modules\/(\.pnpm\/)?undici[@/]/.test(n.callFrame.url)) ||
    (/fastify\/lib\/route\.js/.test(n.callFrame.url) && n.callFrame.functionName === 'routeHandler');
  for (const n of profile.nodes) {
    for (let m: ProfileNode | undefined = n; m; m = byId.get(parent.get(m.id) ?? -1)) {
      if (isRequest(m)) {
        requestish.add(n.id);
        break;
      }
    }
  }
  const perBucket = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    if (requestish.has(id)) perBucket.set(Math.floor(times[i]! / bucket), (perBucket.get(Math.floor(times[i]! / bucket)) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  });
  const peak = Math.max(0, ...perBucket.values());
  const hot = [...perBucket.entries()].filter(([, us]) => us >= peak / 20).map(([b]) => b).sort((a, b) => a - b);
  let best = { from: 0, to: -1, busy: 0 };
  let cur = { from: hot[0] ?? 0, to: hot[0] ?? -1, busy: 0 };
  for (const b of hot) {
    if (b - cur.to > 8) cur = { from: b, to: b, busy: 0 };
    cur.to = b;
    cur.busy += perBucket.get(b)!;
    if (cur.busy > best.busy) best = { ...cur };
  }
  const from = best.from * bucket;
  const to = (best.to + 1) * bucket;
  const layers = new Map<string, number>();
  const self = new Map<string, number>();
  let idle = 0;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const at = times[i]!;
    if (at < from || at >= to) return;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const leaf = byId.get(id)!;
    if (idleName(leaf)) return void (idle += dt);
    busy += dt;
    const f = leaf.callFrame;
    const selfKey = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\/(\.pnpm\/)?/, '').replace(/^file:\/\/.*?\/(packages|services|gateway)\//, '$1/')}:${f.lineNumber + 1}`;
    self.set(selfKey, (self.get(selfKey) ?? 0) + dt);
    let layer: string | undefined;
    if (f.functionName === '(garbage collector)') layer = 'garbage collection';
    else if (f.functionName === '(program)') layer = '(program: V8 and native, no JavaScript frame)';
    for (let n: ProfileNode | undefined = leaf; n && !layer; n = byId.get(parent.get(n.id) ?? -1)) {
      if (PASS_THROUGH(n.callFrame) && n !== leaf) continue;
      layer = LAYERS.find(([, test]) => test(n!.callFrame))?.[0];
      if (!layer && !PASS_THROUGH(n.callFrame)) layer = `other: ${n.callFrame.url.replace(/^.*node_modules\/(\.pnpm\/)?/, '').split('/').slice(0, 2).join('/') || n.callFrame.functionName}`;
    }
    layer ??= 'node internals (event loop, streams)';
    layers.set(layer, (layers.get(layer) ?? 0) + dt);
  });
  const ms = (us: number) => Math.round(us / 100) / 10;
  return {
    process: whose(profile),
    file,
    windowMs: ms(to - from),
    window: [from / 1e6, to / 1e6],
    busyMs: ms(busy),
    idleMs: ms(idle),
    layers: [...layers.entries()].sort((a, b) => b[1] - a[1]).map(([layer, us]) => ({ layer, ms: ms(us) })),
    top: [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, topN).map(([fn, us]) => ({ fn, ms: ms(us) })),
  };
}

function main() {
  const args = process.argv.slice(2);
  const requests = Number(args.find((a) => a.startsWith('--requests='))?.split('=')[1] ?? 0);
  const topN = Number(args.find((a) => a.startsWith('--top='))?.split('=')[1] ?? 15);
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the process's main thread (others: tsx's loader)
  const files = profilesIn(args.filter((a) => !a.startsWith('--'))).filter((f) => !/\.\d+\.[1-9]\d*\.\d+\.cpuprofile$/.test(f));
  if (!files.length) throw new Error('usage: npx tsx bench/profile-summary.ts <dir or .cpuprofile files> [--requests=N] [--top=15]');
  for (const file of files) {
    const s = summarize(file, topN);
    const per = (msValue: number) => (requests ? ` | ${Math.round((msValue * 1000) / requests)}` : '');
    console.log(`\n### ${s.process} (${path.basename(file)}): ${s.windowMs} ms of load (${s.window[0]}–${s.window[1]} s), ${s.busyMs} ms busy, ${s.idleMs} ms idle\n`);
    console.log(`| layer | ms | % of busy${requests ? ' | µs / request' : ''} |\n| --- | --: | --: |${requests ? ' --: |' : ''}`);
    for (const l of s.layers) console.log(`| ${l.layer} | ${l.ms} | ${((l.ms / s.busyMs) * 100).toFixed(1)}${per(l.ms)} |`);
    console.log(`| **busy in all** | ${s.busyMs} | 100${per(s.busyMs)} |`);
    console.log(`\nTop functions by self time:\n`);
    for (const f of s.top) console.log(`- ${f.ms} ms ${f.fn}`);
  }
}

if (require.main === module) main();
