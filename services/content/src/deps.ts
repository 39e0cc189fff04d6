import type { ModuleDeps, ServiceDeps } from '@church/common';
import type { Config } from './config';
import type { ContentProviders } from './providers';

/** Content's dependencies with its own config and providers typed: what routes, jobs, domain and repositories use. */
export type ContentDeps = ModuleDeps<Config, ContentProviders>;

/**
 * The typed dependencies of the app a route runs in. Routes, jobs, domain and repositories import this file, never
 * `app.ts`, so the composition root is imported by nothing (no import circle).
 */
export function contentDeps(app: { deps: ServiceDeps }): ContentDeps {
  return app.deps as unknown as ContentDeps;
}
