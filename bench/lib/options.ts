export interface BenchOptions {
  target: 'postgres' | 'embedded';
  fleet: 'processes' | 'single';
  duration: number;
  connections: number;
  warmup: number;
  only?: string[];
  redis: boolean;
  reuse: boolean;
  explain: boolean;
  databaseUrl: string;
  redisUrl: string;
  /** embedded: the data folder, kept after the run (seeded when empty; with --reuse, reused when seeded) */
  dataDir?: string;
  /** `--app-reads[=module,...]`: every GET of the real apps instead of the scenarios (all modules when empty) */
  appReads?: string[];
}

export const USAGE = `pnpm bench [options]
  --target=postgres|embedded  fleet on fresh bench_<module> PostgreSQL databases (default) or on PGlite in a temp dir
  --fleet=processes|single    postgres: the gateway and each service in its own process, as deployed (default), or all in one
  --duration=10               seconds per scenario and per ceiling
  --connections=20            concurrent connections per scenario and per ceiling
  --warmup=3                  unrecorded seconds of load before each measurement (0: none)
  --only=login,churches       run only these scenarios (ceilings always run)
  --app-reads[=giving,...]    instead of the scenarios, every GET the real apps make (shared/clients/frontend-calls.json),
                              once each (defaults then: --duration=1 --warmup=0.5 --connections=10); results/app-reads-<target>.md
  --no-redis                  postgres: in-process jobs even when Redis answers (embedded never uses Redis)
  --reuse                     keep what an earlier run seeded: the bench_* databases (postgres) or the --data-dir (embedded)
  --data-dir=DIR              embedded: this data folder instead of a temporary one, kept after the run
  --no-explain                skip EXPLAIN (ANALYZE, BUFFERS) of the queries of the scenarios marked explain
  --database-url=URL          admin URL of the PostgreSQL server (default $BENCH_DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres)
  --redis-url=URL             default $BENCH_REDIS_URL or redis://127.0.0.1:6379`;

/** Parses `--name=value` flags; an unknown flag or a bad number stops with the usage. */
export function parseOptions(argv: string[]): BenchOptions {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    if (arg === '--') continue;
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unexpected argument ${arg}\n${USAGE}`);
    flags.set(match[1]!, match[2] ?? 'true');
  }
  const known = ['target', 'fleet', 'duration', 'connections', 'warmup', 'only', 'no-redis', 'reuse', 'no-explain', 'database-url', 'redis-url', 'data-dir', 'app-reads', 'help'];
  for (const name of flags.keys()) if (!known.includes(name)) throw new Error(`unknown option --${name}\n${USAGE}`);
  if (flags.has('help')) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name: string, fallback: number, min: number) => {
    const value = Number(flags.get(name) ?? fallback);
    if (!Number.isFinite(value) || value < min) throw new Error(`--${name} must be a number ≥ ${min}`);
    return value;
  };
  const target = flags.get('target') ?? 'postgres';
  if (target !== 'postgres' && target !== 'embedded') throw new Error(`--target must be postgres or embedded\n${USAGE}`);
  const fleet = flags.get('fleet') ?? (target === 'postgres' ? 'processes' : 'single');
  if (fleet !== 'processes' && fleet !== 'single') throw new Error(`--fleet must be processes or single\n${USAGE}`);
  if (flags.has('data-dir') && target !== 'embedded') throw new Error('--data-dir is for --target=embedded (postgres reuses its bench_* databases)');
  if (fleet === 'processes' && target !== 'postgres') throw new Error('--fleet=processes runs on the postgres target only (PGlite is one process per database)');
  const appReads = flags.has('app-reads') ? (flags.get('app-reads') === 'true' ? [] : flags.get('app-reads')!.split(',').map((s) => s.trim()).filter(Boolean)) : undefined;
  if (appReads && flags.has('only')) throw new Error('--app-reads and --only are exclusive');
  return {
    target,
    fleet,
    // app reads: about 290 calls, each a short run, so that the whole run stays within about ten minutes
    duration: number('duration', appReads ? 1 : 10, 1),
    connections: number('connections', appReads ? 10 : 20, 1),
    warmup: number('warmup', appReads ? 0.5 : 3, 0),
    appReads,
    only: flags.get('only')?.split(',').map((s) => s.trim()).filter(Boolean),
    redis: !flags.has('no-redis'),
    reuse: flags.has('reuse'),
    explain: !flags.has('no-explain'),
    databaseUrl: flags.get('database-url') ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: flags.get('redis-url') ?? process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    dataDir: flags.get('data-dir'),
  };
}
