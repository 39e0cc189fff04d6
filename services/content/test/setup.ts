import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createTestApp, tokenFor, type TestApp, type TokenOptions } from '@church/common/testing';
import type { ServiceDeps } from '@church/common';
import { buildApp } from '../src/app';

export const MIGRATIONS = [path.join(__dirname, '..', 'drizzle', 'website'), path.join(__dirname, '..', 'drizzle', 'media')];

type Options = { config?: Record<string, string>; overrides?: Partial<ServiceDeps> };

/** Starts the content app before the file's tests and closes it after; the returned object reads through to it. */
export function useContent(opts: Options = {}): TestApp {
  let current: TestApp | undefined;
  beforeAll(async () => {
    current = await createTestApp('content', MIGRATIONS, buildApp, opts);
  });
  afterAll(() => current?.close());
  return new Proxy({} as TestApp, { get: (_target, key) => current![key as keyof TestApp] });
}

/** A church for this test: a fresh id; `token()` mints tokens for it. */
export function makeChurch() {
  const churchId = randomUUID();
  const personId = randomUUID();
  return {
    churchId,
    personId,
    token: (permissions: TokenOptions['permissions'] = [], extra: Partial<TokenOptions> = {}) => tokenFor({ churchId, personId, permissions, ...extra }),
  };
}
