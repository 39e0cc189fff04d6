import path from 'node:path';
import { createService, defineModule, emailJob, withSettings, type BaseConfig, type ServiceDeps } from '@church/common';
import { attendanceSettings, type Config } from './config';
import { TAG_DESCRIPTIONS } from './docs';
import { routes } from './routes';

/** What the attendance deployable is made of; main, worker, migrate and tests all start from it. */
export const attendance = defineModule<Config>({
  module: 'attendance',
  tagDescriptions: TAG_DESCRIPTIONS,
  migrationsFolder: path.join(__dirname, '..', 'drizzle'),
  routes,
  jobs: (deps) => [emailJob('attendance', () => deps.mailer)],
});
export const definition = attendance.definition;

/** Builds the attendance app; tests pass a test database and other dependencies in `overrides`. */
export function buildApp(config: BaseConfig & Record<string, unknown>, overrides: Partial<ServiceDeps> = {}, options: { migrate?: boolean } = {}) {
  return createService(definition, withSettings(attendanceSettings, config), { overrides, migrate: options.migrate, logger: config.LOG_LEVEL !== 'silent' });
}
