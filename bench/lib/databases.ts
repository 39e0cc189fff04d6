import net from 'node:net';
import { Client } from 'pg';
import { MODULES } from '@church/common';

/** The URL of database `name` on the server of `adminUrl`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function postgresReachable(adminUrl: string): Promise<boolean> {
  const client = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Fresh `bench_<module>` databases (dropped first), or the existing ones when `reuse` and they exist. */
export async function prepareDatabases(adminUrl: string, reuse: boolean): Promise<Record<string, string>> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const urls: Record<string, string> = {};
    for (const module of MODULES) {
      const name = `bench_${module}`;
      const exists = (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount;
      if (!reuse || !exists) {
        await admin.query(`drop database if exists "${name}" with (force)`);
        await admin.query(`create database "${name}"`);
      }
      urls[module] = databaseUrl(adminUrl, name);
    }
    return urls;
  } finally {
    await admin.end();
  }
}

/** A tiny database for the fastify+pg ceiling when the fleet itself runs on PGlite. */
export async function prepareCeilingDatabase(adminUrl: string, churchIds: string[]): Promise<string> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('drop database if exists "bench_ceiling" with (force)');
  await admin.query('create database "bench_ceiling"');
  await admin.end();
  const url = databaseUrl(adminUrl, 'bench_ceiling');
  const db = new Client({ connectionString: url });
  await db.connect();
  await db.query('create table churches (id uuid primary key, name text not null)');
  await db.query(`insert into churches select id, 'Church ' || n from unnest($1::uuid[]) with ordinality as t(id, n)`, [churchIds]);
  await db.end();
  return url;
}

/** True when a Redis server answers PING at `url` within a second. */
export function redisReachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname || '127.0.0.1', port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}
