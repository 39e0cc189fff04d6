import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createTestApp, tokenFor, type TestApp, type TokenOptions } from '@church/common/testing';
import type { ServiceDeps } from '@church/common';
import { buildApp } from '../src/app';
import { churches, people } from '../src/db/schema';

export const MIGRATIONS = path.join(__dirname, '..', 'drizzle');

/** The membership app on a fresh test database (PostgreSQL with TEST_DATABASE_URL, else PGlite). */
export function startMembership(opts: { config?: Record<string, string>; overrides?: Partial<ServiceDeps> } = {}): Promise<TestApp> {
  return createTestApp('membership', MIGRATIONS, buildApp, opts);
}

/** A church inserted directly, with one person; `token()` mints tokens for it. */
export async function makeChurch(t: TestApp, name = `Church ${randomUUID().slice(0, 6)}`) {
  const churchId = randomUUID();
  await t.app.db.insert(churches).values({ id: churchId, name, subDomain: `c${churchId.slice(0, 8)}` });
  const personId = randomUUID();
  await t.app.db.insert(people).values({ id: personId, churchId, firstName: 'Pat', lastName: 'Admin', displayName: 'Pat Admin', membershipStatus: 'Staff' });
  return {
    churchId,
    personId,
    /** a token for this church: `token(['People.View'])`, `token('all')`, or full options */
    token: (permissions: TokenOptions['permissions'] = [], extra: Partial<TokenOptions> = {}) =>
      tokenFor({ churchId, personId, permissions, ...extra }),
  };
}
