import { z } from 'zod';
import { baseConfig } from '@church/common';

/** The attendance deployable's environment: the shared base plus its own settings. */
export const attendanceSettings = z.object({
  /**
   * How old membership's version of a church's people may be when a staff check-in (`Attendance.Edit`) takes the
   * people attendance keeps as live without asking membership again (`peopleCache`); 0 asks on every check-in.
   * Refusals and the household rule of a member's own check-in are always checked with membership at once.
   */
  CHECKIN_PEOPLE_MAX_AGE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
});
export const configSchema = baseConfig.extend(attendanceSettings.shape);
export type Config = z.output<typeof configSchema>;
