import type { ModuleDeps, ServiceDeps } from '@church/common';
import type { Config } from './config';
import type { GivingProviders } from './providers';

/** Giving's dependencies with its own config and providers typed: what routes, jobs and repositories use. */
export type GivingDeps = ModuleDeps<Config, GivingProviders>;

/**
 * The typed dependencies of the app a route runs in. Routes, jobs and repositories import this file, never
 * `app.ts`, so the composition root is imported by nothing (no import circle).
 */
export function givingDeps(app: { deps: ServiceDeps }): GivingDeps {
  return app.deps as unknown as GivingDeps;
}
