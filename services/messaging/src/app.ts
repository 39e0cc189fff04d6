import path from 'node:path';
import { createService, defineModule, emailJob, notifyPeople, withSettings, type BaseConfig, type ModuleDeps, type ServiceDeps } from '@church/common';
import { messagingConfig, type Config } from './config';
import { routes } from './routes';
import { buildProviders, type MessagingProviders } from './providers';
import { messagingJobs } from './jobs';

export type MessagingDeps = ModuleDeps<Config, MessagingProviders>;

/** What the messaging deployable is made of; main, worker, migrate and tests all start from it. */
export const messaging = defineModule<Config, MessagingProviders>({
  module: 'messaging',
  migrationsFolder: path.join(__dirname, '..', 'drizzle'),
  routes,
  providers: buildProviders,
  jobs: (deps) => [emailJob('messaging', () => deps.mailer), ...messagingJobs(deps)],
  owns: [notifyPeople],
});
export const definition = messaging.definition;

/** Builds the messaging app; tests pass a test database and other dependencies in `overrides`. */
export function buildApp(config: BaseConfig & Record<string, unknown>, overrides: Partial<ServiceDeps> = {}, options: { migrate?: boolean } = {}) {
  return createService(definition, withSettings(messagingConfig, config), { overrides, migrate: options.migrate, logger: config.LOG_LEVEL !== 'silent' });
}
