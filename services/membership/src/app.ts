import path from 'node:path';
import { changesReported, createService, emailJob, type ServiceDefinition, type ServiceDeps } from '@church/common';
import { changesJob } from './jobs/changes';
import type { Config } from './config';
import { passwordResetJob } from './jobs/password-reset';
import { proxyConfigJob } from './jobs/proxy-config';
import { routes } from './routes';
import { revocationsSince } from './domain/revocations';

/** What the membership deployable is made of; main, worker, migrate and tests all start from it. */
export const definition: ServiceDefinition = {
  module: 'membership',
  migrationsFolder: path.join(__dirname, '..', 'drizzle'),
  routes,
  jobs: (deps) => [emailJob('membership', () => deps.mailer), proxyConfigJob(deps), passwordResetJob(deps), changesJob(deps)],
  owns: [changesReported],
  // Membership writes the stamps: it reads them from its own table, not over HTTP from itself.
  revocationSource: (deps) => (since) => revocationsSince(deps.db, since),
};

/** Builds the membership app; tests pass a test database and other dependencies in `overrides`. */
export function buildApp(config: Config, overrides: Partial<ServiceDeps> = {}, options: { migrate?: boolean } = {}) {
  return createService(definition, config, { overrides, migrate: options.migrate, logger: config.LOG_LEVEL !== 'silent' });
}
