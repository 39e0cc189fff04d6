import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { createService, defineModule, emailJob, withSettings, type BaseConfig, type ServiceDeps } from '@church/common';
import { reportingFields, type Config } from './config';
import { TAG_DESCRIPTIONS } from './docs';
import { ReportCatalog, type ReportDefinition } from './domain/definition';
import { reports } from './reports';
import { reportRoutes } from './routes/reports';

/** The reporting module over a set of report definitions (the shipped ones; tests add their own). */
export function reportingModule(definitions: ReportDefinition[] = reports) {
  const routes: FastifyPluginAsync[] = [];
  const module = defineModule<Config>({
    module: 'reporting',
    tagDescriptions: TAG_DESCRIPTIONS,
    migrationsFolder: path.join(__dirname, '..', 'drizzle'),
    routes,
    jobs: (deps) => [emailJob('reporting', () => deps.mailer)],
  });
  // The routes read the module's typed config through `module.deps`, so they are added once it exists.
  routes.push(reportRoutes(new ReportCatalog(definitions), module.deps));
  return module;
}

/** What the reporting deployable is made of; main, worker, migrate and tests all start from it. */
export const reporting = reportingModule();
export const definition = reporting.definition;

/** Builds the reporting app; tests pass a test database and other dependencies in `overrides`, and may pass other definitions. */
export function buildApp(config: BaseConfig & Record<string, unknown>, overrides: Partial<ServiceDeps> = {}, options: { migrate?: boolean; reports?: ReportDefinition[] } = {}) {
  const def = options.reports ? reportingModule(options.reports).definition : definition;
  return createService(def, withSettings(reportingFields, config), { overrides, migrate: options.migrate, logger: config.LOG_LEVEL !== 'silent' });
}
