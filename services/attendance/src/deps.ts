import type { ModuleDeps, ServiceDeps } from '@church/common';
import type { Config } from './config';

/** Attendance's dependencies with its own config typed: what routes, domain and repositories use. */
export type AttendanceDeps = ModuleDeps<Config, Record<string, never>>;

/**
 * The typed dependencies of the app a route runs in (`attendanceDeps(app).config.CHECKIN_PEOPLE_MAX_AGE_MS`).
 * Routes, jobs, domain and repositories import this file, never `app.ts`: `app.ts` is the composition root (it
 * imports them all), so nothing imports it back and there is no import circle.
 */
export function attendanceDeps(app: { deps: ServiceDeps }): AttendanceDeps {
  return app.deps as unknown as AttendanceDeps;
}
