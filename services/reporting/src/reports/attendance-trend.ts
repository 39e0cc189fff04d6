import type { ReportDefinition } from '../domain/definition';
import { campusParam, churchIdParam, serviceParam, utcMidnight } from './common';

/**
 * Visits per week (weeks start on Sunday), oldest first. Without a group or service-time filter the weeks sum
 * the per-(service, day) counts attendance keeps in `visit_counts`, so the cost does not grow with the number of
 * visits; a group or service-time filter counts distinct visits of the matching sessions instead. Exactly one of
 * the two branches runs: the other's one-time filter is false.
 */
export const attendanceTrend: ReportDefinition = {
  keyName: 'attendanceTrend',
  displayName: 'Attendance Trend',
  description: 'How many people attended each week.',
  parameters: [
    churchIdParam,
    campusParam,
    serviceParam,
    { keyName: 'serviceTimeId', source: 'query', displayName: 'Service Time', type: 'uuid', list: 'serviceTime' },
    { keyName: 'groupId', source: 'query', displayName: 'Group', type: 'uuid', list: 'group' },
    { keyName: 'startDate', source: 'query', displayName: 'Start Date', type: 'date' },
    { keyName: 'endDate', source: 'query', displayName: 'End Date', type: 'date' },
  ],
  queries: [
    {
      keyName: 'main',
      module: 'attendance',
      params: ['churchId', 'campusId', 'serviceId', 'serviceTimeId', 'groupId', 'startDate', 'endDate'],
      sql: `
select to_char(t.week, 'YYYY-MM-DD') as "week", t.visits as "visits"
from (
  select c.visit_date - extract(dow from c.visit_date)::int as week, sum(c.visits)::int as visits
  from visit_counts c
  where c.church_id = $1::uuid
    and $4::uuid is null and $5::uuid is null
    and ($3::uuid is null or c.service_id = $3::uuid)
    and ($2::uuid is null or c.service_id in (select s.id from services s where s.church_id = $1::uuid and s.campus_id = $2::uuid))
    and ($6::date is null or c.visit_date >= $6::date)
    and ($7::date is null or c.visit_date <= $7::date)
  group by 1
  having sum(c.visits) <> 0
  union all
  select d.day - extract(dow from d.day)::int as week, count(distinct vs.visit_id)::int as visits
  from sessions s
  cross join lateral (select (s.session_date at time zone 'UTC')::date as day) d
  join visit_sessions vs on vs.church_id = $1::uuid and vs.session_id = s.id
  where s.church_id = $1::uuid
    and ($4::uuid is not null or $5::uuid is not null)
    and ($4::uuid is null or s.service_time_id = $4::uuid)
    and ($5::uuid is null or s.group_id = $5::uuid)
    and ($3::uuid is null or s.service_time_id in (select st.id from service_times st where st.church_id = $1::uuid and st.service_id = $3::uuid))
    and ($2::uuid is null or s.service_time_id in (
      select st.id from service_times st join services sv on sv.church_id = $1::uuid and sv.id = st.service_id
      where st.church_id = $1::uuid and sv.campus_id = $2::uuid))
    and ($6::date is null or s.session_date >= ${utcMidnight('$6::date')})
    and ($7::date is null or s.session_date < ${utcMidnight('$7::date + 1')})
  group by 1
) t
order by t.week`,
    },
  ],
  table: { from: 'main' },
  outputs: [
    {
      outputType: 'barChart',
      columns: [
        { header: 'Week', value: 'week', formatter: 'date' },
        { header: 'Visits', value: 'visits', formatter: 'number' },
      ],
    },
    {
      outputType: 'table',
      columns: [
        { header: 'Week', value: 'week', formatter: 'date' },
        { header: 'Visits', value: 'visits', formatter: 'number' },
      ],
    },
  ],
  permissions: [{ requireOne: ['Attendance.View Summary', 'Attendance.View'] }],
};
