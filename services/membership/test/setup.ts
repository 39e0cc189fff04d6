import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ServiceDeps } from '@church/common';
import { createTestApp, tokenFor, useModule, type ModuleOptions, type TestApp, type TokenOptions } from '@church/common/testing';
import { buildApp } from '../src/app';
import { insertChurch } from '../src/repos/churches';
import { insertPerson } from '../src/repos/people';

export const MIGRATIONS = path.join(__dirname, '..', 'drizzle');

/** What a test file adds to the membership app: config, overrides, and the fakes started before it (`ModuleOptions`). */
export type MembershipOptions<X extends object = object> = Omit<ModuleOptions<X>, 'module' | 'migrations' | 'build'>;

/**
 * The membership app on a fresh test database (PostgreSQL with TEST_DATABASE_URL, else PGlite), started before the
 * file's (or describe block's) tests and closed after them, with the fakes `opts.fakes` starts; the returned object
 * reads through to the app and those fakes.
 */
export function useMembership<X extends object = object>(opts: MembershipOptions<X> = {}) {
  return useModule<X>({ module: 'membership', migrations: MIGRATIONS, build: buildApp, ...opts });
}

/**
 * The membership app started by hand (the caller closes it), for packages/common/test/docs.test.ts, which builds
 * several modules' apps in one file; membership's own tests call `useMembership`.
 */
export function startMembership(opts: { config?: Record<string, string>; overrides?: Partial<ServiceDeps> } = {}): Promise<TestApp> {
  return createTestApp('membership', MIGRATIONS, buildApp, opts);
}

/** A church made through the repositories, with one person (Staff); `token()` mints tokens for it. */
export async function makeChurch(t: TestApp, name = `Church ${randomUUID().slice(0, 6)}`) {
  const churchId = randomUUID();
  await insertChurch(t.app.db, { id: churchId, name, subDomain: `c${churchId.slice(0, 8)}` });
  const { id: personId } = await insertPerson(t.app.db, churchId, { firstName: 'Pat', lastName: 'Admin', displayName: 'Pat Admin', membershipStatus: 'Staff' });
  return {
    churchId,
    personId,
    /** a token for this church: `token(['People.View'])`, `token('all')`, or full options */
    token: (permissions: TokenOptions['permissions'] = [], extra: Partial<TokenOptions> = {}) =>
      tokenFor({ churchId, personId, permissions, ...extra }),
  };
}
