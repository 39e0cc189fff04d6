import type { ReportDefinition } from '../domain/definition';
import { churchIdParam, utcMidnight } from './common';

/** How many people attended one group on each day it met; the title names the group (from membership). */
export const dailyGroupAttendance: ReportDefinition = {
  keyName: 'dailyGroupAttendance',
  displayName: 'Group Attendance by Day: {groupName}',
  description: 'How many people attended a group on each day it met.',
  parameters: [
    churchIdParam,
    { keyName: 'groupId', source: 'query', displayName: 'Group', type: 'uuid', required: true, list: 'group' },
    { keyName: 'startDate', source: 'query', displayName: 'Start Date', type: 'date' },
    { keyName: 'endDate', source: 'query', displayName: 'End Date', type: 'date' },
    { keyName: 'groupName', source: 'result', query: 'group', column: 'name', as: 'value' },
  ],
  queries: [
    {
      keyName: 'group',
      module: 'membership',
      params: ['churchId', 'groupId'],
      sql: `select g.name as "name" from groups g where g.church_id = $1::uuid and g.id = $2::uuid`,
    },
    {
      keyName: 'main',
      module: 'attendance',
      params: ['churchId', 'groupId', 'startDate', 'endDate'],
      sql: `
select to_char(d.day, 'YYYY-MM-DD') as "date", count(distinct vs.visit_id)::int as "attendance"
from sessions s
cross join lateral (select (s.session_date at time zone 'UTC')::date as day) d
join visit_sessions vs on vs.church_id = $1::uuid and vs.session_id = s.id
where s.church_id = $1::uuid
  and s.group_id = $2::uuid
  and ($3::date is null or s.session_date >= ${utcMidnight('$3::date')})
  and ($4::date is null or s.session_date < ${utcMidnight('$4::date + 1')})
group by d.day
order by d.day`,
    },
  ],
  table: { from: 'main' },
  outputs: [
    {
      outputType: 'barChart',
      columns: [
        { header: 'Date', value: 'date', formatter: 'date' },
        { header: 'Attendance', value: 'attendance', formatter: 'number' },
      ],
    },
    {
      outputType: 'table',
      columns: [
        { header: 'Date', value: 'date', formatter: 'date' },
        { header: 'Attendance', value: 'attendance', formatter: 'number' },
      ],
    },
  ],
  permissions: [{ requireOne: ['Attendance.View Summary', 'Attendance.View'] }],
};
