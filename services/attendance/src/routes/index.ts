import type { FastifyPluginAsync } from 'fastify';
import attendanceRecords from './attendance-records';
import campuses from './campuses';
import groupServiceTimes from './group-service-times';
import internal from './internal';
import labelTemplates from './label-templates';
import serviceTimes from './service-times';
import services from './services';
import sessions from './sessions';
import streaks from './streaks';
import visitSessions from './visit-sessions';
import visits from './visits';

/** The attendance module's route files, one line per spec table. */
export const routes: FastifyPluginAsync[] = [
  campuses,
  services,
  serviceTimes,
  groupServiceTimes,
  attendanceRecords,
  sessions,
  visits,
  visitSessions,
  streaks,
  labelTemplates,
  internal,
];
