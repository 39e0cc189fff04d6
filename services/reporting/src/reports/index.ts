import type { ReportDefinition } from '../domain/definition';
import { attendanceTrend } from './attendance-trend';
import { birthdays } from './birthdays';
import { dailyGroupAttendance } from './daily-group-attendance';
import { donationDashboardMonthly } from './donation-dashboard-monthly';
import { donationDashboardQuarterly } from './donation-dashboard-quarterly';
import { donationDashboardWeekly } from './donation-dashboard-weekly';
import { donationSummary } from './donation-summary';
import { donationsByPerson } from './donations-by-person';
import { groupAttendance } from './group-attendance';
import { groupAttendanceDownload } from './group-attendance-download';
import { peopleByStatusAndAge } from './people-by-status-and-age';
import { volunteerSchedule } from './volunteer-schedule';

/** The reports the service ships, one file each; the catalog checks every definition at start. */
export const reports: ReportDefinition[] = [
  attendanceTrend,
  groupAttendance,
  dailyGroupAttendance,
  groupAttendanceDownload,
  donationSummary,
  donationDashboardWeekly,
  donationDashboardMonthly,
  donationDashboardQuarterly,
  birthdays,
  donationsByPerson,
  peopleByStatusAndAge,
  volunteerSchedule,
];
