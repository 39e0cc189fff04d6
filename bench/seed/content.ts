import { SHAPE, SQL_HELPERS } from '../lib/fixtures';
import { step, textArray, type Exec, type StepTiming } from './exec';

const k = SHAPE.content;
export const CONTENT_TABLES = ['pages', 'sections', 'elements', 'posts', 'events', 'curated_calendars', 'curated_events', 'sermons'];
const CATEGORIES = ['News', 'Devotional', 'Missions', 'Youth', 'Events'];
const LOREM =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ' +
  'Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.';

/** True when the big church's site is there (an earlier run seeded content). */
export async function contentSeeded(db: Exec, churchId: string): Promise<boolean> {
  const { rows } = await db.query('select count(*)::int as n from pages where church_id = $1', [churchId]);
  return Number(rows[0]?.n ?? 0) > 0;
}

/**
 * Seeds the content database for the big church: a site of 40 pages × 8 sections × 40 elements (12,800
 * elements), 200 blog posts (published over the last 200 days), 200 events of one group gathered in a curated
 * calendar, and 1,000 sermons (one a week).
 */
export async function seedContent(db: Exec): Promise<StepTiming[]> {
  const timings: StepTiming[] = [];
  for (const helper of SQL_HELPERS) await db.query(helper);
  const church = `pg_temp.uid('church:0')`;
  await step(db, timings, 'pages', `
    insert into pages (id, church_id, name, url, title, meta_description, layout)
    select pg_temp.uid('page:0:' || p), ${church}, 'Page ' || p, case when p = 0 then '/' else '/page-' || p end,
           case when p = 0 then 'Home' else 'Page ' || p end, 'About page ' || p, 'headerFooter'
      from generate_series(0, ${k.pages - 1}) p`);
  await step(db, timings, 'sections', `
    insert into sections (id, church_id, page_id, zone, background, text_color, sort)
    select pg_temp.uid('section:0:' || p || ':' || s), ${church}, pg_temp.uid('page:0:' || p), 'main',
           case when s % 2 = 0 then '#FFFFFF' else '#F5F5F5' end, 'dark', s
      from generate_series(0, ${k.pages - 1}) p cross join generate_series(0, ${k.sectionsPerPage - 1}) s`);
  // elements reference themselves (parent_id): their primary key cannot be dropped for the load (12,800 rows)
  await step(db, timings, 'elements', `
      insert into elements (id, church_id, section_id, element_type, sort, answers)
      select pg_temp.uid('element:0:' || p || ':' || s || ':' || e), ${church}, pg_temp.uid('section:0:' || p || ':' || s),
             case when e % 10 = 0 then 'textWithPhoto' else 'text' end, e,
             case when e % 10 = 0
                  then jsonb_build_object('text', '<p>' || $1 || '</p>', 'photo', 'https://cdn.example.test/p/' || p || '/' || s || '.jpg', 'photoAlt', 'Photo ' || e, 'photoPosition', 'left')
                  else jsonb_build_object('text', '<h3>Heading ' || e || '</h3><p>' || $1 || '</p>', 'textAlignment', 'left') end
        from generate_series(0, ${k.pages - 1}) p cross join generate_series(0, ${k.sectionsPerPage - 1}) s
        cross join generate_series(0, ${k.elementsPerSection - 1}) e`, [LOREM]);
  await step(db, timings, 'posts', `
    insert into posts (id, church_id, title, slug, excerpt, content, author_id, photo_url, publish_date, category, tags)
    select pg_temp.uid('post:0:' || n), ${church}, 'Post number ' || n, 'post-' || n, left($1, 120), repeat('<p>' || $1 || '</p>', 4),
           pg_temp.uid('person:0:' || (n % ${SHAPE.users})), 'https://cdn.example.test/posts/' || n || '.jpg',
           now() - make_interval(days => n + 1), (${textArray(CATEGORIES)})[1 + n % ${CATEGORIES.length}],
           jsonb_build_array('tag' || (n % 7), 'tag' || (n % 11))
      from generate_series(0, ${k.posts - 1}) n`, [LOREM]);
  // The group's events: one every two days around today, some all-day, a few weekly recurring.
  await step(db, timings, 'events', `
    insert into events (id, church_id, group_id, all_day, start, "end", title, description, visibility, recurrence_rule)
    select pg_temp.uid('event:0:' || n), ${church}, pg_temp.uid('group:0:${k.eventGroup}'), n % 10 = 5, st, st + interval '90 minutes',
           'Event ' || n, left($1, 160), 'public', case when n % 25 = 0 then 'FREQ=WEEKLY;COUNT=8' end
      from generate_series(0, ${k.calendarEvents - 1}) n
      cross join lateral (select (current_date - 200 + 2 * n)::timestamp at time zone 'UTC' + interval '18 hours' as st) t`, [LOREM]);
  await step(db, timings, 'curated calendar', `
    insert into curated_calendars (id, church_id, name) values (pg_temp.uid('calendar:0:0'), ${church}, 'Church Calendar')`);
  await step(db, timings, 'curated events', `
    insert into curated_events (id, church_id, curated_calendar_id, group_id)
    values (pg_temp.uid('ce:0:0'), ${church}, pg_temp.uid('calendar:0:0'), pg_temp.uid('group:0:${k.eventGroup}'))`);
  await step(db, timings, 'sermons', `
    insert into sermons (id, church_id, video_type, video_data, video_url, title, description, publish_date, thumbnail, duration)
    select pg_temp.uid('sermon:0:' || n), ${church}, 'youtube', 'vid' || lpad(n::text, 8, '0'), 'https://www.youtube.com/embed/vid' || lpad(n::text, 8, '0'),
           'Sermon ' || n, left($1, 200), now() - make_interval(days => 7 * n + 1), 'https://cdn.example.test/sermons/' || n || '.jpg', 2400 + n % 900
      from generate_series(0, ${k.sermons - 1}) n`, [LOREM]);
  return timings;
}
