import path from 'node:path';
import { createService, defineModule, withSettings, type BaseConfig, type ServiceDeps } from '@church/common';
import { messagingConfig, type Config } from './config';
import { TAG_DESCRIPTIONS } from './docs';
import { routes } from './routes';
import { buildProviders, type MessagingProviders } from './providers';
import { messagingJobs } from './jobs';
import { OWNED } from './jobs/contracts';

export type { MessagingDeps } from './deps';

/**
 * What the messaging deployable is made of; main, worker, migrate and tests all start from it. The composition root:
 * it imports routes, jobs and providers, and nothing of the module imports it (they reach the typed deps through
 * `deps.ts`).
 */
export const messaging = defineModule<Config, MessagingProviders>({
  module: 'messaging',
  tagDescriptions: TAG_DESCRIPTIONS,
  migrationsFolder: path.join(__dirname, '..', 'drizzle'),
  routes,
  providers: buildProviders,
  jobs: (deps) => messagingJobs(deps),
  owns: OWNED,
});
export const definition = messaging.definition;

/** Builds the messaging app; tests pass a test database and other dependencies in `overrides`. */
export function buildApp(config: BaseConfig & Record<string, unknown>, overrides: Partial<ServiceDeps> = {}, options: { migrate?: boolean } = {}) {
  return createService(definition, withSettings(messagingConfig, config), { overrides, migrate: options.migrate, logger: config.LOG_LEVEL !== 'silent' });
}
