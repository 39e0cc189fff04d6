import path from 'node:path';
import { createService, defineModule, emailJob, siteRemoved, withSettings, type BaseConfig, type ServiceDeps } from '@church/common';
import { contentSettings, type Config } from './config';
import { TAG_DESCRIPTIONS } from './docs';
import { routes } from './routes';
import { buildProviders, type ContentProviders } from './providers';
import { cleanPageHistory, websiteJobs } from './jobs/website';
import { mediaJobs, refreshStreamingServices } from './jobs/media';
import { siteJobs } from './jobs/sites';

export type { ContentDeps } from './deps';

/** What the content deployable is made of; main, worker, migrate and tests all start from it. */
export const content = defineModule<Config, ContentProviders>({
  module: 'content',
  tagDescriptions: TAG_DESCRIPTIONS,
  migrationsFolder: [path.join(__dirname, '..', 'drizzle', 'website'), path.join(__dirname, '..', 'drizzle', 'media')],
  routes,
  providers: buildProviders,
  owns: [refreshStreamingServices, cleanPageHistory, siteRemoved],
  jobs: (deps) => [emailJob('content', () => deps.mailer), ...websiteJobs(deps), ...mediaJobs(deps), ...siteJobs(deps)],
});
export const definition = content.definition;

/** Builds the content app; tests pass a test database and other dependencies in `overrides`. */
export function buildApp(config: BaseConfig & Record<string, unknown>, overrides: Partial<ServiceDeps> = {}, options: { migrate?: boolean } = {}) {
  return createService(definition, withSettings(contentSettings, config), { overrides, migrate: options.migrate, logger: config.LOG_LEVEL !== 'silent' });
}
