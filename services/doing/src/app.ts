import path from 'node:path';
import { createService, defineModule, emailJob, withSettings, type BaseConfig, type ServiceDeps } from '@church/common';
import { doingSettings, type Config } from './config';
import { TAG_DESCRIPTIONS } from './docs';
import { routes } from './routes';
import { buildProviders, type DoingProviders } from './providers';
import { doingJobs, ownedJobs } from './jobs';

export type { DoingDeps } from './deps';

/** What the doing deployable is made of; main, worker, migrate and tests all start from it. Nothing imports this file but them. */
export const doing = defineModule<Config, DoingProviders>({
  module: 'doing',
  tagDescriptions: TAG_DESCRIPTIONS,
  migrationsFolder: path.join(__dirname, '..', 'drizzle'),
  routes,
  providers: buildProviders,
  owns: ownedJobs,
  jobs: (deps) => [emailJob('doing', () => deps.mailer), ...doingJobs(deps)],
});
export const definition = doing.definition;

/** Builds the doing app; tests pass a test database and other dependencies in `overrides`. */
export function buildApp(config: BaseConfig & Record<string, unknown>, overrides: Partial<ServiceDeps> = {}, options: { migrate?: boolean } = {}) {
  return createService(definition, withSettings(doingSettings, config), { overrides, migrate: options.migrate, logger: config.LOG_LEVEL !== 'silent' });
}
