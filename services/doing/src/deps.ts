import type { ModuleDeps, ServiceDeps } from '@church/common';
import type { Config } from './config';
import type { DoingProviders } from './providers';

/** Doing's dependencies with its own config and providers typed: what routes, jobs, domain and repositories use. */
export type DoingDeps = ModuleDeps<Config, DoingProviders>;

/**
 * The typed dependencies of the app a route runs in (`doingDeps(app).providers.lessonFeed`). Routes, jobs, domain
 * and repositories import this file, never `app.ts`: `app.ts` is the composition root (it imports them all), so
 * nothing imports it back and there is no import circle.
 */
export function doingDeps(app: { deps: ServiceDeps }): DoingDeps {
  return app.deps as unknown as DoingDeps;
}
