import type { ModuleDeps, ServiceDeps } from '@church/common';
import type { Config } from './config';

/** Membership's dependencies with its own config typed: what routes, jobs, domain and repositories use. */
export type MembershipDeps = ModuleDeps<Config, Record<string, never>>;

/**
 * The typed dependencies of the app a route runs in (`membershipDeps(app).config.APP_URL`). Routes, jobs and
 * repositories import this file, never `app.ts`, so the composition root is imported by nothing.
 */
export function membershipDeps(app: { deps: ServiceDeps }): MembershipDeps {
  return app.deps as unknown as MembershipDeps;
}
