import { call } from '@church/common/testing';
import type { FastifyInstance } from 'fastify';
import { makeChurch } from '../setup';

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
