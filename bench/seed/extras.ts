import { SHAPE, SQL_HELPERS } from '../lib/fixtures';
import { step, type Exec, type StepTiming } from './exec';

/**
 * The areas the apps read that the scenario seed leaves empty, for the big church (`pnpm bench --app-reads`):
 * forms and their submissions, person fields, saved lists, the audit log, webhooks with their deliveries,
 * join requests, pickups, a member login (membership); workflows, their steps, triggers and cards (doing);
 * rooms, resources, bookings, registrations, songs, playlists (content); reminders, private messages, group chats,
 * e-mail templates (messaging); customers, subscriptions, payment methods, failed events (giving).
 *
 * Plain SQL like the rest of the seed (ids from `pg_temp.uid(key)`, every choice a hash of the row's key), a few
 * hundred to a few thousand rows per table: what a church of 10,000 people has after a few years of using an area.
 * Each module's part is seeded when its marker row is missing, in the caller's transaction, so `--reuse` of
 * databases seeded before this existed adds just these rows.
 */
export const EXTRA_SHAPE = {
  /** a login of the big church who is a plain member (no role): person `memberPerson`, `member@bench.test` */
  memberPerson: 20,
  forms: 5,
  questionsPerForm: 6,
  submissions: 400,
  savedLists: 12,
  auditLogs: 5_000,
  webhooks: 3,
  deliveriesPerWebhook: 200,
  workflows: 6,
  stepsPerWorkflow: 5,
  cards: 600,
  rooms: 4,
  resources: 6,
  /** events of the content seed with bookings and with registrations */
  bookedEvents: 150,
  registrationEvents: 10,
  registrationsPerEvent: 60,
  songs: 40,
  reminderEvents: 20,
  privateMessages: 60,
  ministries: 4,
  teams: 6,
} as const;

const x = EXTRA_SHAPE;
const church = `pg_temp.uid('church:0')`;
const person = (expr: string) => `pg_temp.uid('person:0:' || (${expr}))`;

async function marked(db: Exec, table: string, key: string): Promise<boolean> {
  const { rows } = await db.query(`select exists (select 1 from ${table} where id = pg_temp.uid($1)) as seeded`, [key]);
  return rows[0]?.seeded === true;
}

/** Seeds one module's extra rows unless its marker row is there; answers the steps' timings. */
export async function seedExtras(module: 'membership' | 'doing' | 'content' | 'messaging' | 'giving', db: Exec): Promise<StepTiming[] | undefined> {
  for (const helper of SQL_HELPERS) await db.query(helper);
  const seeders = { membership, doing, content, messaging, giving };
  const markers = { membership: ['forms', 'form:0:0'], doing: ['workflows', 'workflow:0:0'], content: ['rooms', 'room:0:0'], messaging: ['email_templates', 'emailtemplate:0:0'], giving: ['customers', 'customer:0:0'] } as const;
  const [table, key] = markers[module];
  if (await marked(db, table, key)) return undefined;
  const timings: StepTiming[] = [];
  await seeders[module](db, timings);
  return timings;
}

async function membership(db: Exec, t: StepTiming[]): Promise<void> {
  const { rows } = await db.query(`select password_hash from users where id = pg_temp.uid('user:0')`);
  const hash = rows[0]?.password_hash;
  await step(db, t, 'member login', `
    insert into users (id, email, password_hash, first_name, last_name, email_verified)
    values (pg_temp.uid('user:member'), 'member@bench.test', $1, 'Bench', 'Member', true)`, [hash]);
  await step(db, t, 'member user church', `
    insert into user_churches (id, user_id, church_id, person_id) values (pg_temp.uid('uc:member'), pg_temp.uid('user:member'), ${church}, ${person(String(x.memberPerson))})`);
  await db.query(`update people set user_id = pg_temp.uid('user:member') where church_id = ${church} and id = ${person(String(x.memberPerson))}`);
  await step(db, t, 'site', `insert into sites (id, church_id, name, sub_domain) values (pg_temp.uid('site:0:0'), ${church}, 'Main site', 'benchgrace')`);
  await step(db, t, 'ministries and teams', `
    insert into groups (id, church_id, category_name, name, slug, track_attendance, tags, meeting_time, meeting_location)
    select pg_temp.uid('group:0:ministry:' || k), ${church}, 'Ministries', 'Ministry ' || (k + 1), 'x-ministry-' || (k + 1), false, '{ministry}'::text[], null, null
      from generate_series(0, ${x.ministries - 1}) k
    union all
    select pg_temp.uid('group:0:team:' || k), ${church}, 'Teams', 'Team ' || (k + 1), 'x-team-' || (k + 1), false, '{team}'::text[], null, null
      from generate_series(0, ${x.teams - 1}) k`);
  await step(db, t, 'team members', `
    insert into group_members (id, church_id, group_id, person_id, leader)
    select pg_temp.uid('gm:0:team:' || k || ':' || i), ${church}, pg_temp.uid('group:0:team:' || k), ${person(`${SHAPE.doing.firstCandidate} + k * 30 + i`)}, i = 0
      from generate_series(0, ${x.teams - 1}) k cross join generate_series(0, 29) i`);
  await step(db, t, 'forms', `
    insert into forms (id, church_id, name, content_type, restricted, archived, removed)
    select pg_temp.uid('form:0:' || f), ${church}, (array['Visitor card','Prayer request','Volunteer interest','Baptism','Membership class'])[f + 1],
           case when f < 3 then 'person' else 'form' end, f = 1, false, false
      from generate_series(0, ${x.forms - 1}) f`);
  await step(db, t, 'questions', `
    insert into questions (id, church_id, form_id, title, description, field_type, placeholder, sort, choices, required, removed)
    select pg_temp.uid('question:0:' || f || ':' || q), ${church}, pg_temp.uid('form:0:' || f), 'Question ' || (q + 1), null,
           (array['Textbox','Multiple Choice','Date','Email','Phone Number','Whole Number'])[q + 1], null, q,
           case when q = 1 then '[{"value":"Yes","text":"Yes"},{"value":"No","text":"No"}]'::jsonb end, q = 0, false
      from generate_series(0, ${x.forms - 1}) f cross join generate_series(0, ${x.questionsPerForm - 1}) q`);
  await step(db, t, 'form submissions', `
    insert into form_submissions (id, church_id, form_id, content_type, content_id, submitted_by, submission_date, revision_date)
    select pg_temp.uid('submission:0:' || n), ${church}, pg_temp.uid('form:0:' || (n % ${x.forms})), 'person', ${person(`n * 23 % ${SHAPE.big.people}`)},
           ${person(`n * 23 % ${SHAPE.big.people}`)}, now() - make_interval(days => n), now() - make_interval(days => n)
      from generate_series(0, ${x.submissions - 1}) n`);
  await step(db, t, 'answers', `
    insert into answers (id, church_id, form_submission_id, question_id, value)
    select pg_temp.uid('answer:0:' || n || ':' || q), ${church}, pg_temp.uid('submission:0:' || n), pg_temp.uid('question:0:' || (n % ${x.forms}) || ':' || q),
           case q when 1 then 'Yes' when 2 then '2024-05-0' || (1 + n % 9) when 5 then (n % 7)::text else 'Answer ' || n || '.' || q end
      from generate_series(0, ${x.submissions - 1}) n cross join generate_series(0, ${x.questionsPerForm - 1}) q`);
  await step(db, t, 'member permissions', `
    insert into member_permissions (id, church_id, member_id, content_type, content_id, action, email_notification)
    select pg_temp.uid('mp:0:' || f), ${church}, ${person('0')}, 'form', pg_temp.uid('form:0:' || f), 'admin', f = 0 from generate_series(0, ${x.forms - 1}) f`);
  await step(db, t, 'person fields', `
    insert into person_fields (id, church_id, name, field_type, choices, sort)
    select pg_temp.uid('field:0:' || k), ${church}, (array['T-shirt size','Allergies','Baptism date','Spiritual gifts'])[k + 1],
           (array['select','text','date','text'])[k + 1], case when k = 0 then 'S,M,L,XL' end, k from generate_series(0, 3) k`);
  await step(db, t, 'person field values', `
    insert into person_field_values (id, church_id, person_id, field_id, value)
    select pg_temp.uid('pfv:0:' || i || ':' || k), ${church}, ${person('i')}, pg_temp.uid('field:0:' || k),
           case k when 0 then (array['S','M','L','XL'])[1 + i % 4] when 1 then 'Peanuts' when 2 then '2019-04-2' || (i % 9) else 'Teaching' end
      from generate_series(0, 1999) i cross join generate_series(0, 3) k where pg_temp.rnd(i * 4 + k, 71) < 0.5`);
  await step(db, t, 'saved lists', `
    insert into saved_lists (id, church_id, created_by_person_id, name, category, conditions, rules, scope, household_inclusion, auto_refresh, notify_on_change)
    select pg_temp.uid('list:0:' || k), ${church}, ${person(`k % ${SHAPE.users}`)}, 'List ' || (k + 1), (array['Follow-up','Outreach','Care'])[1 + k % 3], '[]'::jsonb,
           jsonb_build_object('match', 'all', 'conditions', jsonb_build_array(
             jsonb_build_object('provider', 'person', 'field', 'gender', 'operator', 'equals', 'value', case when k % 2 = 0 then 'Male' else 'Female' end),
             jsonb_build_object('provider', 'person', 'field', 'age', 'operator', 'greaterThan', 'value', (20 + k * 3)::text))),
           case when k % 4 = 0 then 'private' else 'org' end, 'none', false, false
      from generate_series(0, ${x.savedLists - 1}) k`);
  await step(db, t, 'audit log', `
    insert into audit_logs (id, church_id, user_id, person_id, category, action, entity_type, entity_id, details, ip_address, module, created_at)
    select pg_temp.uid('audit:0:' || n), ${church}, pg_temp.uid('user:' || (n % ${SHAPE.users})), ${person(`n % ${SHAPE.users}`)},
           (array['people','groups','donation','settings','login','permissions'])[1 + n % 6], (array['created','updated','deleted'])[1 + n % 3],
           (array['person','group','donation','setting','user','role'])[1 + n % 6], ${person(`n * 7 % ${SHAPE.big.people}`)}::text,
           '{"field":"name"}', '10.0.0.' || (n % 250), (array['membership','membership','giving','membership','membership','membership'])[1 + n % 6],
           now() - make_interval(secs => n * 1500)
      from generate_series(0, ${x.auditLogs - 1}) n`);
  await step(db, t, 'webhooks', `
    insert into webhooks (id, church_id, name, url, secret, events, active, created_by)
    select pg_temp.uid('webhook:0:' || k), ${church}, 'Hook ' || (k + 1), 'https://hooks.example.test/' || k, 'not-a-real-secret',
           case k when 0 then array['person.created','person.updated'] when 1 then array['donation.created'] else array['group.created','groupMember.created'] end, k < 2, pg_temp.uid('user:0')
      from generate_series(0, ${x.webhooks - 1}) k`);
  await step(db, t, 'webhook deliveries', `
    insert into webhook_deliveries (id, church_id, webhook_id, message_id, event, payload, status, attempt_count, response_status, response_body, created_at, completed_at)
    select pg_temp.uid('delivery:0:' || k || ':' || n), ${church}, pg_temp.uid('webhook:0:' || k), 'msg_' || k || '_' || n, 'person.updated',
           '{"type":"person.updated","data":{"id":"' || ${person('n')} || '"}}', case when n % 10 = 0 then 'failed' else 'succeeded' end, 1 + (n % 10 = 0)::int,
           case when n % 10 = 0 then 500 else 200 end, 'ok', now() - make_interval(mins => n * 30), now() - make_interval(mins => n * 30)
      from generate_series(0, ${x.webhooks - 1}) k cross join generate_series(0, ${x.deliveriesPerWebhook - 1}) n`);
  await step(db, t, 'webhook attempts', `
    insert into webhook_attempts (id, church_id, delivery_id, attempt, response_status, response_body, duration_ms, created_at)
    select pg_temp.uid('attempt:0:' || k || ':' || n), ${church}, pg_temp.uid('delivery:0:' || k || ':' || n), 1, case when n % 10 = 0 then 500 else 200 end, 'ok', 40 + n % 200,
           now() - make_interval(mins => n * 30)
      from generate_series(0, ${x.webhooks - 1}) k cross join generate_series(0, ${x.deliveriesPerWebhook - 1}) n`);
  await step(db, t, 'join requests', `
    insert into group_join_requests (id, church_id, group_id, person_id, message, status, request_date)
    select pg_temp.uid('joinrequest:0:' || n), ${church}, pg_temp.uid('group:0:' || (n % 30)), ${person(`5000 + n`)}, 'I would like to join', 'pending', now() - make_interval(days => n)
      from generate_series(0, 39) n`);
  await step(db, t, 'household pickups', `
    insert into household_pickups (id, church_id, household_id, person_id, name, relationship, status)
    select pg_temp.uid('pickup:0:' || h || ':' || k), ${church}, pg_temp.uid('household:0:' || h), null, 'Grandparent ' || k, 'Grandparent', case when k = 2 then 'notAuthorized' else 'trusted' end
      from generate_series(0, 199) h cross join generate_series(0, 2) k`);
  await step(db, t, 'batches', `
    insert into batches (id, church_id, user_id, label, source, status, item_count, created_at, completed_at)
    select pg_temp.uid('batch:0:x:' || k), ${church}, pg_temp.uid('user:0'), 'Import ' || (k + 1), 'import', 'completed', 50, now() - make_interval(days => k * 7), now() - make_interval(days => k * 7)
      from generate_series(0, 9) k`);
  await step(db, t, 'batch items', `
    insert into batch_items (id, church_id, batch_id, entity_type, entity_id, action, before)
    select pg_temp.uid('batchitem:0:' || k || ':' || n), ${church}, pg_temp.uid('batch:0:x:' || k), 'person', ${person(`k * 50 + n`)}, 'updated', '{}'::jsonb
      from generate_series(0, 9) k cross join generate_series(0, 49) n`);
}

async function doing(db: Exec, t: StepTiming[]): Promise<void> {
  const wf = (expr: string) => `pg_temp.uid('workflow:0:' || (${expr}))`;
  const stepId = (w: string, s: string) => `pg_temp.uid('wstep:0:' || (${w}) || ':' || (${s}))`;
  await step(db, t, 'workflow categories', `
    insert into workflow_categories (id, church_id, name, sort)
    select pg_temp.uid('wcat:0:' || k), ${church}, (array['Assimilation','Care','Serving'])[k + 1], k from generate_series(0, 2) k`);
  await step(db, t, 'workflows', `
    insert into workflows (id, church_id, name, category_id, active, sort)
    select ${wf('w')}, ${church}, (array['New visitor follow-up','Membership class','Baptism','Hospital visit','Volunteer onboarding','Small group placement'])[w + 1],
           pg_temp.uid('wcat:0:' || (w % 3)), true, w from generate_series(0, ${x.workflows - 1}) w`);
  await step(db, t, 'workflow steps', `
    insert into workflow_steps (id, church_id, workflow_id, name, sort, default_assign_to_type, default_assign_to_id, default_assign_to_label, expected_response_days)
    select ${stepId('w', 's')}, ${church}, ${wf('w')}, 'Step ' || (s + 1), s, 'person', ${person(`s % ${SHAPE.users}`)}::text, 'Bench User ' || (s % ${SHAPE.users}), 3 + s
      from generate_series(0, ${x.workflows - 1}) w cross join generate_series(0, ${x.stepsPerWorkflow - 1}) s`);
  await step(db, t, 'workflow step actions', `
    insert into workflow_step_actions (id, church_id, workflow_id, step_id, sort, action_type, config)
    select pg_temp.uid('waction:0:' || w || ':' || s), ${church}, ${wf('w')}, ${stepId('w', 's')}, 0, 'sendEmail', '{"subject":"Welcome","body":"Hello"}'
      from generate_series(0, ${x.workflows - 1}) w cross join generate_series(0, ${x.stepsPerWorkflow - 1}) s where s % 2 = 0`);
  await step(db, t, 'workflow step routes', `
    insert into workflow_step_routes (id, church_id, workflow_id, step_id, sort, trigger, kind, label, target_step_id)
    select pg_temp.uid('wroute:0:' || w || ':' || s), ${church}, ${wf('w')}, ${stepId('w', 's')}, 0, 'onComplete', 'always', 'Next', ${stepId('w', 's + 1')}
      from generate_series(0, ${x.workflows - 1}) w cross join generate_series(0, ${x.stepsPerWorkflow - 2}) s`);
  await step(db, t, 'workflow triggers', `
    insert into workflow_triggers (id, church_id, name, trigger_kind, event_type, workflow_id, step_id, conditions, once_per_subject, active)
    select pg_temp.uid('wtrigger:0:' || w), ${church}, 'When a person is added', 'event', 'person.created', ${wf('w')}, ${stepId('w', '0')}, null, true, true
      from generate_series(0, ${x.workflows - 1}) w`);
  await step(db, t, 'workflow cards', `
    insert into tasks (id, church_id, task_number, task_type, date_created, date_closed, associated_with_type, associated_with_id, associated_with_label,
                       created_by_type, created_by_id, created_by_label, assigned_to_type, assigned_to_id, assigned_to_label, title, note, status,
                       workflow_id, step_id, trigger_id, due_date, sort)
    select pg_temp.uid('card:0:' || n), ${church}, 1000 + n, 'workflow', now() - make_interval(days => n % 120), case when n % 4 = 0 then now() - make_interval(days => n % 30) end,
           'person', ${person(`3000 + n`)}::text, 'Person ' || (3000 + n), 'system', null, 'Workflow', 'person', ${person(`n % ${SHAPE.users}`)}::text, 'Bench User ' || (n % ${SHAPE.users}),
           'Follow up with person ' || (3000 + n), null, case when n % 4 = 0 then 'Closed' else 'Open' end,
           ${wf(`n % ${x.workflows}`)}, ${stepId(`n % ${x.workflows}`, `n % ${x.stepsPerWorkflow}`)}, pg_temp.uid('wtrigger:0:' || (n % ${x.workflows})), now() + make_interval(days => n % 14), n
      from generate_series(0, ${x.cards - 1}) n`);
  await step(db, t, 'tasks', `
    insert into tasks (id, church_id, task_number, task_type, date_created, associated_with_type, associated_with_id, associated_with_label,
                       created_by_type, created_by_id, created_by_label, assigned_to_type, assigned_to_id, assigned_to_label, title, status)
    select pg_temp.uid('task:0:' || n), ${church}, 5000 + n, 'directoryUpdate', now() - make_interval(days => n), 'person', ${person(`n * 3`)}::text, 'Person ' || (n * 3),
           'person', ${person(`n * 3`)}::text, 'Person ' || (n * 3), case when n % 2 = 0 then 'person' else 'group' end,
           case when n % 2 = 0 then ${person('0')}::text else pg_temp.uid('group:0:0')::text end, 'Bench', 'Update contact details', case when n % 3 = 0 then 'Closed' else 'Open' end
      from generate_series(0, 199) n`);
  await step(db, t, 'workflow executions', `
    insert into workflow_executions (id, church_id, trigger_id, workflow_id, event_key, event_type, subject_type, subject_id, subject_label, status, attempt_count, task_id, date_created, date_completed)
    select pg_temp.uid('wexec:0:' || n), ${church}, pg_temp.uid('wtrigger:0:' || (n % ${x.workflows})), ${wf(`n % ${x.workflows}`)}, 'person.created:' || n, 'person.created',
           'person', ${person(`3000 + n`)}::text, 'Person ' || (3000 + n), 'completed', 1, pg_temp.uid('card:0:' || n), now() - make_interval(days => n % 120), now() - make_interval(days => n % 120)
      from generate_series(0, ${x.cards - 1}) n`);
  // task numbers go on from the seeded ones
  await db.query(`delete from task_counters where church_id = ${church}`);
  await db.query(`insert into task_counters (church_id, last) values (${church}, 6000)`);
  // the items plan: two times, the positions of the ministry's teams and who serves them
  await step(db, t, 'plan times', `
    insert into times (id, church_id, plan_id, display_name, start_time, end_time, teams, service_time_type)
    select pg_temp.uid('time:0:items:' || k), ${church}, pg_temp.uid('plan:0:items'), (array['Rehearsal','9:00 Service','11:00 Service'])[k + 1],
           current_date + make_interval(hours => 8 + k), current_date + make_interval(hours => 9 + k), null, (array['rehearsal','service','service'])[k + 1]
      from generate_series(0, 2) k`);
  await step(db, t, 'plan positions', `
    insert into positions (id, church_id, plan_id, category_name, name, count)
    select pg_temp.uid('position:0:items:' || j), ${church}, pg_temp.uid('plan:0:items'), 'Team ' || (j % 6), 'Position ' || j, 1 + j % 2 from generate_series(0, 11) j`);
  await step(db, t, 'plan assignments', `
    insert into assignments (id, church_id, plan_id, position_id, person_id, status)
    select pg_temp.uid('assignment:0:items:' || j), ${church}, pg_temp.uid('plan:0:items'), pg_temp.uid('position:0:items:' || j), ${person(`${SHAPE.doing.firstCandidate} + j * 7`)},
           (array['Accepted','Unconfirmed','Declined'])[1 + j % 3] from generate_series(0, 11) j
    union all
    select pg_temp.uid('assignment:0:items:member'), ${church}, pg_temp.uid('plan:0:items'), pg_temp.uid('position:0:items:0'), ${person(String(x.memberPerson))}, 'Unconfirmed'`);
  await step(db, t, 'plan item times', `
    insert into plan_item_times (id, church_id, plan_id, plan_item_id, time_id, excluded)
    select pg_temp.uid('pit:0:' || h || ':' || k), ${church}, pg_temp.uid('plan:0:items'), pg_temp.uid('planitem:0:' || h), pg_temp.uid('time:0:items:' || k), k = 0 and h > 2
      from generate_series(0, 5) h cross join generate_series(0, 2) k`);
  await step(db, t, 'plan templates', `
    insert into plan_templates (id, church_id, ministry_id, name, data)
    select pg_temp.uid('plantemplate:0:' || k), ${church}, pg_temp.uid('group:0:ministry:0'), 'Template ' || (k + 1), '{}'::jsonb from generate_series(0, 2) k`);
  await step(db, t, 'scheduling preferences', `
    insert into scheduling_preferences (id, church_id, person_id, max_per_month, preferred_times, household_scheduling)
    select pg_temp.uid('schedpref:0:' || i), ${church}, ${person(`${SHAPE.doing.firstCandidate} + i`)}, 2 + i % 3, null, 'none' from generate_series(0, 99) i`);
  await db.query(`update plan_types set ministry_id = pg_temp.uid('group:0:ministry:0') where church_id = ${church}`);
  await db.query(`update plans set ministry_id = pg_temp.uid('group:0:ministry:0') where church_id = ${church} and id = pg_temp.uid('plan:0:items')`);
  await step(db, t, 'blockouts of the member', `
    insert into blockout_dates (id, church_id, person_id, start_date, end_date)
    values (pg_temp.uid('blockout:0:member'), ${church}, ${person(String(x.memberPerson))}, current_date + 14, current_date + 21)`);
}

async function content(db: Exec, t: StepTiming[]): Promise<void> {
  await step(db, t, 'rooms', `
    insert into rooms (id, church_id, name, description, capacity) select pg_temp.uid('room:0:' || r), ${church}, (array['Sanctuary','Fellowship Hall','Room 101','Chapel'])[r + 1], null, (array[800,200,30,120])[r + 1]
      from generate_series(0, ${x.rooms - 1}) r`);
  await step(db, t, 'resources', `
    insert into resources (id, church_id, name, description, quantity) select pg_temp.uid('resource:0:' || r), ${church}, (array['Projector','Tables','Chairs','Sound kit','Van','Coffee urn'])[r + 1], null, (array[2,30,300,1,2,4])[r + 1]
      from generate_series(0, ${x.resources - 1}) r`);
  await step(db, t, 'event bookings', `
    insert into event_bookings (id, church_id, event_id, room_id, resource_id, quantity, status, setup_minutes, teardown_minutes, start_time, end_time, requested_by, requested_date)
    select pg_temp.uid('booking:0:' || n), ${church}, pg_temp.uid('event:0:' || n), case when n % 3 <> 2 then pg_temp.uid('room:0:' || (n % ${x.rooms})) end,
           case when n % 3 = 2 then pg_temp.uid('resource:0:' || (n % ${x.resources})) end, case when n % 3 = 2 then 1 + n % 4 else 1 end,
           (array['approved','approved','pending','rejected'])[1 + n % 4], 15, 15, e.start, e."end", ${person('n % 20')}, now() - make_interval(days => n)
      from generate_series(0, ${x.bookedEvents - 1}) n join events e on e.id = pg_temp.uid('event:0:' || n)`);
  await step(db, t, 'calendar blockouts', `
    insert into calendar_blockouts (id, church_id, room_id, start_time, end_time, reason)
    select pg_temp.uid('calblockout:0:' || n), ${church}, pg_temp.uid('room:0:' || (n % ${x.rooms})), now() + make_interval(days => n * 9), now() + make_interval(days => n * 9, hours => 6), 'Maintenance'
      from generate_series(0, 4) n`);
  await step(db, t, 'event templates', `
    insert into event_templates (id, church_id, name, title, description, duration_minutes, visibility)
    select pg_temp.uid('eventtemplate:0:' || n), ${church}, 'Template ' || (n + 1), 'Event ' || (n + 1), null, 60 + n * 30, 'public' from generate_series(0, 2) n`);
  await step(db, t, 'rsvps', `
    insert into event_rsvps (id, church_id, event_id, person_id, occurrence_start, response)
    select pg_temp.uid('rsvp:0:' || n || ':' || i), ${church}, pg_temp.uid('event:0:' || n), ${person(`n * 40 + i`)}, e.start, (array['yes','yes','maybe','no'])[1 + i % 4]
      from generate_series(0, 19) n cross join generate_series(0, 14) i join events e on e.id = pg_temp.uid('event:0:' || n)`);
  await step(db, t, 'registration types', `
    insert into registration_types (id, church_id, event_id, name, description, price, capacity, sort, active)
    select pg_temp.uid('regtype:0:' || n || ':' || r), ${church}, pg_temp.uid('event:0:' || n), (array['Adult','Child'])[r + 1], null, (array[25.00, 10.00])[r + 1]::numeric, 100, r, true
      from generate_series(0, ${x.registrationEvents - 1}) n cross join generate_series(0, 1) r`);
  await step(db, t, 'registration selections', `
    insert into registration_selections (id, church_id, event_id, name, description, price, capacity, max_quantity, sort, active)
    select pg_temp.uid('regsel:0:' || n), ${church}, pg_temp.uid('event:0:' || n), 'T-shirt', null, 12.50, 200, 3, 0, true from generate_series(0, ${x.registrationEvents - 1}) n`);
  await step(db, t, 'registrations', `
    insert into registrations (id, church_id, event_id, person_id, household_id, status, registered_date, total_amount, amount_paid)
    select pg_temp.uid('registration:0:' || n || ':' || i), ${church}, pg_temp.uid('event:0:' || n), ${person(`n * 100 + i`)}, null,
           case when i % 15 = 0 then 'cancelled' when i >= 55 then 'waitlisted' else 'confirmed' end, now() - make_interval(days => i), 25.00, case when i % 3 = 0 then 0 else 25.00 end
      from generate_series(0, ${x.registrationEvents - 1}) n cross join generate_series(0, ${x.registrationsPerEvent - 1}) i`);
  await step(db, t, 'registration members', `
    insert into registration_members (id, church_id, registration_id, person_id, first_name, last_name, registration_type_id)
    select pg_temp.uid('regmember:0:' || n || ':' || i || ':' || m), ${church}, pg_temp.uid('registration:0:' || n || ':' || i), ${person(`n * 100 + i`)}, 'Guest', 'Member ' || m,
           pg_temp.uid('regtype:0:' || n || ':' || (m % 2))
      from generate_series(0, ${x.registrationEvents - 1}) n cross join generate_series(0, ${x.registrationsPerEvent - 1}) i cross join generate_series(0, 1) m`);
  await step(db, t, 'song details', `
    insert into song_details (id, church_id, title, artist, album, language, bpm, key_signature, seconds, meter)
    select pg_temp.uid('songdetail:0:' || s), ${church}, 'Song ' || (s + 1), 'Artist ' || (s % 9), 'Album ' || (s % 5), 'en', 70 + s, (array['C','D','E','G','A'])[1 + s % 5], 200 + s, '4/4'
      from generate_series(0, ${x.songs - 1}) s`);
  await step(db, t, 'songs', `
    insert into songs (id, church_id, name, date_added) select pg_temp.uid('song:0:' || s), ${church}, 'Song ' || (s + 1), now() - make_interval(days => s * 20)
      from generate_series(0, ${x.songs - 1}) s`);
  await step(db, t, 'arrangements', `
    insert into arrangements (id, church_id, song_id, song_detail_id, name, lyrics)
    select pg_temp.uid('arrangement:0:' || s), ${church}, pg_temp.uid('song:0:' || s), pg_temp.uid('songdetail:0:' || s), 'Default', repeat('[Verse 1] Lyrics line ', 20)
      from generate_series(0, ${x.songs - 1}) s`);
  await step(db, t, 'arrangement keys', `
    insert into arrangement_keys (id, church_id, arrangement_id, key_signature, short_description)
    select pg_temp.uid('arrkey:0:' || s || ':' || j), ${church}, pg_temp.uid('arrangement:0:' || s), (array['C','G'])[j + 1], (array['Low','High'])[j + 1]
      from generate_series(0, ${x.songs - 1}) s cross join generate_series(0, 1) j`);
  await step(db, t, 'song detail links', `
    insert into song_detail_links (id, church_id, song_detail_id, service, service_key, url)
    select pg_temp.uid('sdlink:0:' || s), ${church}, pg_temp.uid('songdetail:0:' || s), 'YouTube', 'yt' || s, 'https://www.youtube.com/watch?v=yt' || s from generate_series(0, ${x.songs - 1}) s`);
  await step(db, t, 'playlists', `
    insert into playlists (id, church_id, title, description, publish_date, thumbnail, is_public)
    select pg_temp.uid('playlist:0:' || p), ${church}, 'Series ' || (p + 1), null, now() - make_interval(days => p * 60), null, true from generate_series(0, 4) p`);
  await step(db, t, 'streaming services', `
    insert into streaming_services (id, church_id, label, service_time, early_start, duration, chat_before, chat_after, provider, provider_key, recurring, timezone_offset)
    select pg_temp.uid('stream:0:' || s), ${church}, (array['Sunday 9:00','Sunday 11:00'])[s + 1], date_trunc('week', now()) + make_interval(days => 6, hours => 9 + 2 * s),
           300, 3600, 600, 600, 'youtube_live', 'bench-stream-' || s, true, 0 from generate_series(0, 1) s`);
  await step(db, t, 'files', `
    insert into files (id, church_id, content_type, content_id, file_name, file_type, size, storage_key, content_path, uploaded)
    select pg_temp.uid('file:0:' || n), ${church}, case when n < 10 then 'group' else 'arrangement' end,
           case when n < 10 then pg_temp.uid('group:0:0')::text else pg_temp.uid('arrangement:0:0')::text end, 'File ' || n || '.pdf', 'application/pdf', 10000 + n,
           'files/bench/' || n || '.pdf', '/files/bench/' || n || '.pdf', true from generate_series(0, 19) n`);
  await step(db, t, 'links', `
    insert into links (id, church_id, category, url, link_type, link_data, icon, text, sort, visibility)
    select pg_temp.uid('link:0:' || n), ${church}, case when n < 6 then 'b1Tab' else 'website' end, 'https://example.test/' || n, 'url', null, 'home', 'Link ' || n, n, 'everyone'
      from generate_series(0, 11) n`);
}

async function messaging(db: Exec, t: StepTiming[]): Promise<void> {
  await step(db, t, 'email templates', `
    insert into email_templates (id, church_id, name, subject, html_content, category, date_created, date_modified)
    select pg_temp.uid('emailtemplate:0:' || n), ${church}, 'Template ' || (n + 1), 'Hello {{firstName}}', '<p>Welcome, {{firstName}}</p>', 'general', now(), now() from generate_series(0, 4) n`);
  await step(db, t, 'reminders', `
    insert into reminder_definitions (id, church_id, entity_type, entity_id, scope_id, offsets, send_local_time, time_zone, message, channels, recipient_mode, enabled, date_created, date_modified)
    select pg_temp.uid('reminder:0:event:' || n), ${church}, 'event', pg_temp.uid('event:0:' || n), null, '1440,60', '09:00:00', 'America/Chicago', 'See you there', 'push,email', 'group', true, now(), now()
      from generate_series(0, ${x.reminderEvents - 1}) n
    union all
    select pg_temp.uid('reminder:0:plan'), ${church}, 'plan', null, pg_temp.uid('plan:0:items'), '2880', '09:00:00', 'America/Chicago', null, 'email', null, true, now(), now()
    union all
    select pg_temp.uid('reminder:0:task:' || n), ${church}, 'task', pg_temp.uid('card:0:' || n), null, '1440', '09:00:00', 'America/Chicago', null, 'in_app', null, true, now(), now()
      from generate_series(0, 9) n`);
  await step(db, t, 'reminder occurrences', `
    insert into reminder_occurrences (id, church_id, definition_id, entity_type, entity_id, occurrence, offset_minutes, fire_at, expires_at, status, sent_at, recipient_count)
    select pg_temp.uid('reminderocc:0:' || n || ':' || o), ${church}, pg_temp.uid('reminder:0:event:' || n), 'event', pg_temp.uid('event:0:' || n), 'occ-' || o, 1440,
           now() - make_interval(days => o * 7), now() - make_interval(days => o * 7) + interval '1 day', 'sent', now() - make_interval(days => o * 7), 30
      from generate_series(0, ${x.reminderEvents - 1}) n cross join generate_series(0, 9) o`);
  // private chats between the member and staff, and group chats of the first groups
  await step(db, t, 'conversations', `
    insert into conversations (id, church_id, content_type, content_id, title, date_created, group_id, visibility, allow_anonymous_posts, post_count)
    select pg_temp.uid('conversation:0:private:' || n), ${church}, 'privateMessage', 'privateMessage', 'Private message', now() - make_interval(days => n), null, null, false, 3
      from generate_series(0, ${x.privateMessages - 1}) n
    union all
    select pg_temp.uid('conversation:0:group:' || g), ${church}, 'group', pg_temp.uid('group:0:' || g)::text, 'Group chat', now() - make_interval(days => 30), pg_temp.uid('group:0:' || g), null, false, 20
      from generate_series(0, 9) g
    union all
    select pg_temp.uid('conversation:0:announce:' || g), ${church}, 'groupAnnouncement', pg_temp.uid('group:0:' || g)::text, 'Announcements', now() - make_interval(days => 30), pg_temp.uid('group:0:' || g), null, false, 2
      from generate_series(0, 9) g`);
  await step(db, t, 'messages', `
    insert into messages (id, church_id, conversation_id, person_id, display_name, time_sent, content, message_type)
    select pg_temp.uid('message:0:private:' || n || ':' || m), ${church}, pg_temp.uid('conversation:0:private:' || n), ${person(`case when m % 2 = 0 then 0 else ${x.memberPerson} + n end`)}, 'Bench',
           now() - make_interval(days => n, mins => 10 - m), 'Private message ' || m, 'message' from generate_series(0, ${x.privateMessages - 1}) n cross join generate_series(0, 2) m
    union all
    select pg_temp.uid('message:0:group:' || g || ':' || m), ${church}, pg_temp.uid('conversation:0:group:' || g), ${person(`g * 5 + m % 5`)}, 'Member ' || (m % 5),
           now() - make_interval(hours => 200 - m * 10), 'Group message ' || m, 'message' from generate_series(0, 9) g cross join generate_series(0, 19) m
    union all
    select pg_temp.uid('message:0:announce:' || g || ':' || m), ${church}, pg_temp.uid('conversation:0:announce:' || g), ${person('0')}, 'Bench User 0',
           now() - make_interval(days => 7 - m), 'Announcement ' || m, 'message' from generate_series(0, 9) g cross join generate_series(0, 1) m`);
  await step(db, t, 'private messages', `
    insert into private_messages (id, church_id, conversation_id, from_person_id, to_person_id, notify_person_id, delivery_method, updated_at, hidden_by_from, hidden_by_to)
    select pg_temp.uid('pm:0:' || n), ${church}, pg_temp.uid('conversation:0:private:' || n), ${person('0')}, ${person(`${x.memberPerson} + n`)},
           case when n % 2 = 0 then ${person(`${x.memberPerson} + n`)} end, 'push', now() - make_interval(days => n), false, false from generate_series(0, ${x.privateMessages - 1}) n`);
  await db.query(`
    update conversations c set first_post_id = (select id from messages m where m.conversation_id = c.id order by time_sent limit 1),
                               last_post_id = (select id from messages m where m.conversation_id = c.id order by time_sent desc limit 1)
     where c.church_id = ${church} and c.id in (select conversation_id from messages where church_id = ${church})`);
  await step(db, t, 'notification preferences', `
    insert into notification_preferences (id, church_id, person_id, allow_push, email_frequency, master_mute)
    select pg_temp.uid('notifpref:0:' || i), ${church}, ${person('i')}, true, (array['individual','daily','never'])[1 + i % 3], false from generate_series(0, ${SHAPE.users}) i`);
  await step(db, t, 'devices', `
    insert into devices (id, church_id, person_id, app_name, device_id, label, push_token, registration_date, last_active_date, pairing_code, paired)
    select pg_temp.uid('device:0:' || n), ${church}, ${person(`case when n = 0 then ${x.memberPerson} else n end`)}, 'B1Mobile', 'bench-device-' || n, 'Phone ' || n, 'ExponentPushToken[bench' || n || ']', now(), now(), null, true
      from generate_series(0, 9) n`);
  await step(db, t, 'device contents', `
    insert into device_contents (id, church_id, device_id, content_type, content_id)
    select pg_temp.uid('devicecontent:0:' || n), ${church}, pg_temp.uid('device:0:' || n), 'playlist', 'bench-playlist' from generate_series(0, 9) n`);
}

async function giving(db: Exec, t: StepTiming[]): Promise<void> {
  await step(db, t, 'customers', `
    insert into customers (id, church_id, person_id, provider, provider_customer_id, email, name)
    select pg_temp.uid('customer:0:' || i), ${church}, ${person('i')}, 'stripe', 'cus_bench' || i, 'person' || i || '@bench.test', 'Person ' || i from generate_series(0, 199) i`);
  await step(db, t, 'payment methods', `
    insert into payment_methods (id, church_id, person_id, customer_id, provider, provider_method_id, type, brand, last4, exp_month, exp_year, status)
    select pg_temp.uid('pm:0:' || i), ${church}, ${person('i')}, pg_temp.uid('customer:0:' || i), 'stripe', 'pm_bench' || i, 'card', 'visa', lpad((i % 10000)::text, 4, '0'), 1 + i % 12, 2030, 'active'
      from generate_series(0, 199) i`);
  await step(db, t, 'subscriptions', `
    insert into subscriptions (id, church_id, person_id, customer_id, provider, provider_subscription_id, amount, currency, interval, interval_count, billing_cycle_anchor, status, payment_method_id)
    select pg_temp.uid('subscription:0:' || i), ${church}, ${person('i')}, pg_temp.uid('customer:0:' || i), 'stripe', 'sub_bench' || i, (25 + i % 10 * 25)::numeric, 'usd', 'month', 1, now() - make_interval(days => i),
           'active', 'pm_bench' || i from generate_series(0, 99) i`);
  await step(db, t, 'subscription funds', `
    insert into subscription_funds (id, church_id, subscription_id, fund_id, amount)
    select pg_temp.uid('subfund:0:' || i), ${church}, pg_temp.uid('subscription:0:' || i), pg_temp.uid('fund:0:' || (i % 3)), (25 + i % 10 * 25)::numeric from generate_series(0, 99) i`);
  await step(db, t, 'failed payment events', `
    insert into event_logs (id, church_id, customer_id, provider, provider_id, event_type, status, message, resolved, created_at)
    select pg_temp.uid('eventlog:0:' || n), ${church}, 'cus_bench' || n, 'stripe', 'evt_bench' || n, 'charge.failed', 'failed', 'Your card was declined.', n % 3 = 0, now() - make_interval(days => n)
      from generate_series(0, 49) n`);
}
