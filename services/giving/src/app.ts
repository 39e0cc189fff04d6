import path from 'node:path';
import { createService, defineModule, emailJob, withSettings, type BaseConfig, type ServiceDeps } from '@church/common';
import { givingFields, type Config } from './config';
import { TAG_DESCRIPTIONS } from './docs';
import { routes } from './routes';
import { buildProviders, type GivingProviders } from './providers';
import { givingJobs, ownedJobs } from './jobs';

/** What the giving deployable is made of; main, worker, migrate and tests all start from it. */
export const giving = defineModule<Config, GivingProviders>({
  module: 'giving',
  tagDescriptions: TAG_DESCRIPTIONS,
  migrationsFolder: path.join(__dirname, '..', 'drizzle'),
  routes,
  providers: buildProviders,
  jobs: (deps) => [emailJob('giving', () => deps.mailer), ...givingJobs(deps)],
  owns: ownedJobs,
});
export const definition = giving.definition;

/** Builds the giving app; tests pass a test database and other dependencies in `overrides`. */
export function buildApp(config: BaseConfig & Record<string, unknown>, overrides: Partial<ServiceDeps> = {}, options: { migrate?: boolean } = {}) {
  return createService(definition, withSettings(givingFields, config), { overrides, migrate: options.migrate, logger: config.LOG_LEVEL !== 'silent' });
}
