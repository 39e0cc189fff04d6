import type { SeedReport } from '../seed';

/** How the parent starts a fleet child (JSON in the BENCH_FLEET environment variable). */
export interface FleetChildConfig {
  target: 'postgres' | 'embedded';
  dataDir: string;
  /** module → PostgreSQL URL (postgres target) */
  databaseUrls?: Record<string, string>;
  redisUrl?: string;
  /** skip seeding when the databases already hold the seed */
  reuse: boolean;
  /** also seed the app areas of seed/extras.ts (the app-reads mode) */
  extras?: boolean;
}

export interface FleetReady {
  type: 'ready';
  url: string;
  secrets: { JWT_SECRET: string; INTERNAL_SECRET: string; ENCRYPTION_KEY: string };
  seed: SeedReport;
}

/** One request whose SQL the child records and explains. */
export interface ExplainRequest {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  token?: string;
}

export interface ExplainedQuery {
  module: string;
  sql: string;
  params: unknown[];
  plan: string;
}

export interface ExplainResult {
  name: string;
  status: number;
  queries: ExplainedQuery[];
  error?: string;
}

export type ToChild = { type: 'explain'; id: number; requests: ExplainRequest[] } | { type: 'quiet'; id: number } | { type: 'memory'; id: number; resetPeak?: boolean } | { type: 'close' };

/** The fleet process's memory in bytes: resident now, its peak (VmHWM), and V8's view of it. */
export interface MemorySample {
  rss: number;
  hwm: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** bytes the services' snapshot stores hold (the fleet child only) */
  snapshots?: number;
}
export type FromChild =
  | FleetReady
  | { type: 'explained'; id: number; results: ExplainResult[] }
  | { type: 'quieted'; id: number; waitedMs: number }
  | { type: 'memory'; id: number; sample: MemorySample }
  | { type: 'failed'; error: string };
