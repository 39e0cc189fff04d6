import type { ReportDefinition } from '../domain/definition';
import { idsIn, WEEK_SESSIONS_PARAMS, weekSessionsParameters, weekSessionsSql } from './common';

/**
 * Who attended which group at each service time in one week: attendance's sessions of the week, with the
 * groups' and people's names from membership (ids handed over from the first query).
 */
export const groupAttendance: ReportDefinition = {
  keyName: 'groupAttendance',
  displayName: 'Group Attendance',
  description: 'Who attended each group at each service time in a week.',
  parameters: [
    ...weekSessionsParameters,
    { keyName: 'groupIds', source: 'result', query: 'main', column: 'groupId' },
    { keyName: 'personIds', source: 'result', query: 'main', column: 'personId' },
  ],
  queries: [
    {
      keyName: 'main',
      module: 'attendance',
      params: WEEK_SESSIONS_PARAMS,
      sql: weekSessionsSql(
        `sv.name as "serviceName", st.name as "serviceTimeName", s.group_id as "groupId", v.person_id as "personId",
  to_char((s.session_date at time zone 'UTC')::date, 'YYYY-MM-DD') as "sessionDate"`,
        `
join visit_sessions vs on vs.church_id = $1::uuid and vs.session_id = s.id
join visits v on v.church_id = $1::uuid and v.id = vs.visit_id`,
      ),
    },
    {
      keyName: 'groups',
      module: 'membership',
      params: ['churchId', 'groupIds'],
      sql: `select g.id as "id", g.name as "name" from groups g where g.church_id = $1::uuid and g.id ${idsIn(2)}`,
    },
    {
      keyName: 'people',
      module: 'membership',
      params: ['churchId', 'personIds'],
      sql: `select p.id as "id", p.display_name as "displayName" from people p where p.church_id = $1::uuid and p.id ${idsIn(2)}`,
    },
  ],
  table: {
    from: 'main',
    joins: [
      { query: 'groups', kind: 'one', on: { groupId: 'id' }, columns: { name: 'groupName' } },
      { query: 'people', kind: 'one', on: { personId: 'id' }, columns: { displayName: 'displayName' } },
    ],
    sort: ['serviceName', 'serviceTimeName', 'groupName', 'displayName', 'personId'],
  },
  outputs: [
    {
      outputType: 'tree',
      groupings: ['serviceTimeName', 'groupName'],
      columns: [
        { header: 'Service Time', value: 'serviceTimeName', formatter: 'string' },
        { header: 'Group', value: 'groupName', formatter: 'string' },
        { header: 'Person', value: 'displayName', formatter: 'string' },
      ],
    },
  ],
  permissions: [{ requireOne: ['Attendance.View'] }],
};
