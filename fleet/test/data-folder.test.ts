import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openEmbeddedDatabase } from '@church/common';
import { lockDataDir } from '../src/data-lock';

// A small church's one box: one fleet per data folder, and a folder that survives a power cut.
describe('the embedded data folder', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'data-folder-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('refuses a second fleet on a folder a running one holds, naming the holder, and is free again once released', () => {
    const release = lockDataDir(root, 8080);
    expect(() => lockDataDir(root, 9090)).toThrow(new RegExp(`in use by the fleet of process ${process.pid} \\(gateway port 8080`));
    release();
    expect(existsSync(path.join(root, 'fleet.lock'))).toBe(false);
    lockDataDir(root, 9090)();
  });

  it('takes over the lock of a fleet that died without releasing it (kill -9, a power cut)', () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(path.join(root, 'fleet.lock'), JSON.stringify({ pid: Number(gone.stdout), host: require('node:os').hostname(), port: 8080, since: '2026-01-01T00:00:00Z' }));
    const release = lockDataDir(root, 8081);
    expect(JSON.parse(readFileSync(path.join(root, 'fleet.lock'), 'utf8'))).toMatchObject({ pid: process.pid, port: 8081 });
    release();
  });

  it('opens the embedded database after a process was killed mid-write, with what it had committed', async () => {
    const dir = path.join(root, 'db');
    const writer = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures', 'writer.ts'), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      writer.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('writing') && resolve());
      writer.on('exit', (code) => reject(new Error(`the writer stopped on its own (${code})`)));
    });
    writer.kill('SIGKILL');
    await new Promise((resolve) => writer.once('exit', resolve));
    const embedded = await openEmbeddedDatabase(dir);
    try {
      const [row] = await embedded.forModule('journal').rows<{ n: number; max: number }>('select count(*)::int as n, max(n)::int as max from entries', []);
      // Every committed row is there, and no gap: the rows are 1..max.
      expect(row!.n).toBeGreaterThanOrEqual(20);
      expect(row!.n).toBe(row!.max);
      await embedded.forModule('journal').rows('insert into entries values ($1, $2)', [row!.max + 1, 'after the crash']);
    } finally {
      await embedded.close();
    }
  }, 120_000);
});
