import type { ReportDefinition } from '../domain/definition';
import { idsIn, WEEK_SESSIONS_PARAMS, weekSessionsParameters, weekSessionsSql } from './common';

/**
 * Every member of every group that met in the week, per meeting, with whether they attended: the week's
 * sessions (attendance), their groups' members (membership), then who of them has a visit in that session.
 */
export const groupAttendanceDownload: ReportDefinition = {
  keyName: 'groupAttendanceDownload',
  displayName: 'Group Attendance Download',
  description: 'Attendance of every group member at each meeting of their group in a week.',
  parameters: [
    ...weekSessionsParameters,
    { keyName: 'groupIds', source: 'result', query: 'sessions', column: 'groupId' },
    { keyName: 'sessionIds', source: 'result', query: 'sessions', column: 'sessionId' },
  ],
  queries: [
    {
      keyName: 'sessions',
      module: 'attendance',
      params: WEEK_SESSIONS_PARAMS,
      sql: weekSessionsSql(
        `s.id as "sessionId", s.group_id as "groupId", sv.name as "serviceName", st.name as "serviceTimeName",
  to_char((s.session_date at time zone 'UTC')::date, 'YYYY-MM-DD') as "sessionDate"`,
      ),
    },
    {
      keyName: 'members',
      module: 'membership',
      params: ['churchId', 'groupIds'],
      sql: `
select gm.group_id as "groupId", gm.person_id as "personId", p.display_name as "displayName", g.name as "groupName"
from group_members gm
join people p on p.church_id = $1::uuid and p.id = gm.person_id and not p.removed
join groups g on g.church_id = $1::uuid and g.id = gm.group_id
where gm.church_id = $1::uuid and gm.group_id ${idsIn(2)}`,
    },
    {
      keyName: 'attendees',
      module: 'attendance',
      params: ['churchId', 'sessionIds'],
      sql: `
select vs.session_id as "sessionId", v.person_id as "personId"
from visit_sessions vs
join visits v on v.church_id = $1::uuid and v.id = vs.visit_id
where vs.church_id = $1::uuid and vs.session_id ${idsIn(2)}`,
    },
  ],
  table: {
    from: 'sessions',
    joins: [
      { query: 'members', kind: 'many', on: { groupId: 'groupId' }, columns: { personId: 'personId', displayName: 'displayName', groupName: 'groupName' } },
      { query: 'attendees', kind: 'exists', on: { sessionId: 'sessionId', personId: 'personId' }, flag: 'attended' },
    ],
    sort: ['sessionDate', 'serviceName', 'serviceTimeName', 'groupName', 'displayName', 'personId'],
  },
  outputs: [
    {
      outputType: 'table',
      columns: [
        { header: 'Date', value: 'sessionDate', formatter: 'date' },
        { header: 'Service', value: 'serviceName', formatter: 'string' },
        { header: 'Service Time', value: 'serviceTimeName', formatter: 'string' },
        { header: 'Group', value: 'groupName', formatter: 'string' },
        { header: 'Person', value: 'displayName', formatter: 'string' },
        { header: 'Attended', value: 'attended', formatter: 'boolean' },
      ],
    },
    {
      outputType: 'tree',
      groupings: ['serviceTimeName', 'groupName'],
      columns: [
        { header: 'Service Time', value: 'serviceTimeName', formatter: 'string' },
        { header: 'Group', value: 'groupName', formatter: 'string' },
        { header: 'Person', value: 'displayName', formatter: 'string' },
        { header: 'Attended', value: 'attended', formatter: 'boolean' },
      ],
    },
  ],
  permissions: [{ requireOne: ['Attendance.View'] }, { requireOne: ['GroupMembers.View', 'People.View'] }],
};
