import type { ReportDefinition } from '../domain/definition';
import { churchIdParam, idsIn } from './common';

/**
 * Who serves where: every assignment of the plans whose service day falls in the range (today and the next four
 * weeks unless given), optionally one ministry's, with the volunteers' names from membership.
 */
export const volunteerSchedule: ReportDefinition = {
  keyName: 'volunteerSchedule',
  displayName: 'Volunteer Schedule',
  description: 'Volunteer assignments of the plans in a date range.',
  parameters: [
    churchIdParam,
    { keyName: 'startDate', source: 'query', displayName: 'Start Date', type: 'date', default: 'today' },
    { keyName: 'endDate', source: 'query', displayName: 'End Date', type: 'date', default: 'today+4w' },
    { keyName: 'ministryId', source: 'query', displayName: 'Ministry', type: 'uuid' },
    { keyName: 'personIds', source: 'result', query: 'main', column: 'personId' },
  ],
  queries: [
    {
      keyName: 'main',
      module: 'doing',
      params: ['churchId', 'startDate', 'endDate', 'ministryId'],
      sql: `
select p.id as "planId", to_char(p.service_date, 'YYYY-MM-DD') as "serviceDate", p.name as "planName",
  pos.category_name as "team", pos.name as "position", a.person_id as "personId", a.status as "status"
from plans p
join assignments a on a.church_id = $1::uuid and a.plan_id = p.id
join positions pos on pos.church_id = $1::uuid and pos.id = a.position_id
where p.church_id = $1::uuid
  and p.service_date between $2::date and $3::date
  and ($4::uuid is null or p.ministry_id = $4::uuid)`,
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
    joins: [{ query: 'people', kind: 'one', on: { personId: 'id' }, columns: { displayName: 'displayName' } }],
    sort: ['serviceDate', 'planName', 'planId', 'team', 'position', 'displayName', 'personId'],
  },
  outputs: [
    {
      outputType: 'table',
      columns: [
        { header: 'Date', value: 'serviceDate', formatter: 'date' },
        { header: 'Plan', value: 'planName', formatter: 'string' },
        { header: 'Team', value: 'team', formatter: 'string' },
        { header: 'Position', value: 'position', formatter: 'string' },
        { header: 'Volunteer', value: 'displayName', formatter: 'string' },
        { header: 'Status', value: 'status', formatter: 'string' },
      ],
    },
    {
      outputType: 'tree',
      groupings: ['serviceDate', 'planName', 'position'],
      columns: [
        { header: 'Volunteer', value: 'displayName', formatter: 'string' },
        { header: 'Status', value: 'status', formatter: 'string' },
      ],
    },
  ],
  permissions: [{ requireOne: ['Plans.Edit', 'People.View'] }],
};
