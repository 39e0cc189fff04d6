import { call } from '@church/common/testing';
import type { FastifyInstance } from 'fastify';
import { makeChurch } from './setup';

/** A church with the tokens the website tests use. */
export function church() {
  const c = makeChurch();
  return {
    ...c,
    editor: c.token(['Content.Edit']),
    anyone: c.token(),
    /** `Settings.Edit` (the harness files it in every API that has it, content's included) */
    settingsEditor: c.token(['Settings.Edit']),
  };
}

/** `call` that fails loudly on an unexpected status and answers the parsed body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test bodies are read loosely
export async function ok<T = any>(app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE', url: string, opts: { token?: string; body?: unknown } = {}, status = 200): Promise<T> {
  const res = await call(app, method, url, opts);
  if (res.statusCode !== status) throw new Error(`${method} ${url}: expected ${status}, got ${res.statusCode} ${res.body.slice(0, 500)}`);
  return res.body ? res.json() : (undefined as T);
}

type Query = (...args: unknown[]) => unknown;
// the `pg` the service's pool uses (a dependency of @church/common)
const pgClient = (require(require.resolve('pg', { paths: [require.resolve('@church/common')] })) as { Client: { prototype: { query: Query } } }).Client.prototype;

/**
 * How many SQL statements `fn` sends to PostgreSQL with `churchId` among their values (what other tests' and
 * background pollers send carries another church or none). Asserts a route's statement count, never its time.
 */
export async function statementsFor(churchId: string, fn: () => Promise<unknown>): Promise<number> {
  const spy = jest.spyOn(pgClient, 'query');
  try {
    await fn();
    return spy.mock.calls.filter(([config, values]) => {
      const params = Array.isArray(values) ? values : (config as { values?: unknown[] } | undefined)?.values;
      return Array.isArray(params) && params.includes(churchId);
    }).length;
  } finally {
    spy.mockRestore();
  }
}
