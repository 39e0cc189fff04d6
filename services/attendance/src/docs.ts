/**
 * What each group of this module's routes is about, for the people who call the API: a tag per table of the spec,
 * shown in the module's OpenAPI document (routes the spec does not list are grouped by path there).
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Campuses: 'A church’s campuses: the places it meets.',
  Services: 'Services held at a campus (Sunday morning, Wednesday night).',
  'Service times': 'The times of a service, and the groups that meet at each.',
  'Group service times': 'Which groups meet at which service times.',
  'Attendance records': 'Attendance reports: who came, the weekly trend, a group’s attendance, searches.',
  Sessions: 'A group’s meeting on a date at a service time, and who attended it.',
  Visits: 'A person at a service on a date, and check-in.',
  'Visit sessions': 'Which sessions a visit attended; marking people present.',
  Streaks: 'How many weeks in a row a person has attended.',
};
