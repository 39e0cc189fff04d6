import type { ModuleDeps, ServiceDeps } from '@church/common';
import type { Config } from './config';
import type { MessagingProviders } from './providers';

/** What messaging's routes, jobs and domain are given: the shared dependencies with messaging's config and providers typed. */
export type MessagingDeps = ModuleDeps<Config, MessagingProviders>;

/**
 * Messaging's typed dependencies of an app. Routes, jobs, domain and repositories import this file, never `app.ts`:
 * `app.ts` is the composition root (it imports them all), so nothing imports it back and there is no import circle.
 */
export function depsOf(app: { deps: ServiceDeps }): MessagingDeps {
  return app.deps as unknown as MessagingDeps;
}
