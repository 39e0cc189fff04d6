import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Resident memory of the embedded default at idle: starts the whole fleet (seven modules on the shared PGlite,
 * in-process jobs) on a fresh data folder, with the same Node flags as `pnpm start`, waits until it is ready and
 * has settled, and reports its resident set with a breakdown (V8 heap, WASM and buffers, the rest: code and
 * the runtime). The figure under load comes from `pnpm bench --target=embedded` (its report's memory note).
 *
 *   pnpm bench:memory [--settle=15] [--samples=10]
 * Writes `bench/results/memory-embedded.md`.
 */
const ROOT = path.resolve(__dirname, '..');
const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);

/** The Node flags of `pnpm start` (`node <flags> fleet/src/fleet.ts`), so this measures what a church runs. */
export function startFlags(): string[] {
  const start: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start;
  const words = start.split(/\s+/);
  return words.slice(1, words.indexOf('fleet/src/fleet.ts'));
}

interface Sample {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  hwm: number;
}

async function main() {
  const settleS = arg('settle', 15);
  const samples = arg('samples', 10);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'church-memory-'));
  const flags = startFlags();
  const child = fork(path.join(ROOT, 'bench', 'memory-fleet.ts'), [], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'error' },
    execArgv: flags,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = () =>
    new Promise<Sample>((resolve) => {
      child.once('message', (m: Sample) => resolve(m));
      child.send('sample');
    });
  try {
    const started = Date.now();
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the fleet exited (${code}) before it was ready`)));
    });
    const readyS = (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, settleS * 1000));
    const taken: Sample[] = [];
    for (let i = 0; i < samples; i++) {
      taken.push(await ask());
      await new Promise((r) => setTimeout(r, 1000));
    }
    const median = (f: (s: Sample) => number) => taken.map(f).sort((a, b) => a - b)[Math.floor(taken.length / 2)]!;
    const mb = (n: number) => `${Math.round(n / 2 ** 20)} MB`;
    const rss = median((s) => s.rss);
    const heap = median((s) => s.heapTotal);
    const external = median((s) => s.external);
    const lines = [
      '# Memory of the embedded default',
      '',
      `${new Date().toISOString()}; ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}; \`node ${flags.join(' ')} fleet/src/fleet.ts\` (the flags of \`pnpm start\`), a fresh data folder, all seven modules ready in ${readyS.toFixed(0)} s, then ${settleS} s to settle; median of ${samples} samples a second apart.`,
      '',
      '| | resident |',
      '| --- | ---: |',
      `| **whole fleet at idle (RSS)** | **${mb(rss)}** |`,
      `| V8 heap (${mb(median((s) => s.heapUsed))} in use) | ${mb(heap)} |`,
      `| outside the heap: the shared PGlite's WASM memory and buffers | ${mb(external)} |`,
      `| the rest: compiled code (JavaScript and WASM), the runtime, tsx | ${mb(Math.max(0, rss - heap - external))} |`,
      `| peak since start (VmHWM) | ${mb(median((s) => s.hwm))} |`,
      '',
      `Target (issue 15): ≤ 600 MB at idle: ${rss <= 600 * 2 ** 20 ? 'met' : 'NOT met'}.`,
      '',
    ];
    const out = lines.join('\n');
    process.stdout.write(`${out}\n`);
    writeFileSync(path.join(__dirname, 'results', 'memory-embedded.md'), out);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 2000));
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
