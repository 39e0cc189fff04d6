import { randomUUID } from 'node:crypto';
import { call, permissionLists, TEST_SECRET } from '@church/common/testing';
import { createTokenSigner } from '@church/auth';
import type { FastifyInstance } from 'fastify';
import { makeChurch } from '../setup';

const sign = createTokenSigner(TEST_SECRET);

/** A church with the tokens the website tests use. */
export function church() {
  const c = makeChurch();
  return {
    ...c,
    editor: c.token(['Content.Edit']),
    anyone: c.token(),
    /** `Settings.Edit` of the content API (the harness files unknown-API permissions under membership) */
    settingsEditor: sign({
      id: randomUUID(),
      email: 'settings@example.test',
      churchId: c.churchId,
      personId: c.personId,
      permissions: { ...permissionLists([]), ContentApi: ['Settings.Edit'] },
      leaderGroupIds: [],
    }),
  };
}

/** `call` that fails loudly on an unexpected status and answers the parsed body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test bodies are read loosely
export async function ok<T = any>(app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE', url: string, opts: { token?: string; body?: unknown } = {}, status = 200): Promise<T> {
  const res = await call(app, method, url, opts);
  if (res.statusCode !== status) throw new Error(`${method} ${url}: expected ${status}, got ${res.statusCode} ${res.body.slice(0, 500)}`);
  return res.body ? res.json() : (undefined as T);
}
