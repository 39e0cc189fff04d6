import { Client } from 'pg';
import { fixtures, SHAPE, SQL_HELPERS } from '../lib/fixtures';
import { literal, step, textArray, withoutIndexes, type Exec, type StepTiming } from './exec';

const m = SHAPE.messaging;
export const MESSAGING_TABLES = ['conversations', 'messages', 'notifications'];
const KINDS = ['message', 'task', 'plan', 'group', 'event', 'donation'];

/** True when the big church's notifications are there (an earlier run seeded messaging). */
export async function messagingSeeded(db: Exec, churchId: string): Promise<boolean> {
  const { rows } = await db.query('select exists (select 1 from notifications where church_id = $1) as seeded', [churchId]);
  return rows[0]?.seeded === true;
}

/**
 * Seeds the messaging database for the big church: a notification history for each of its people (10 to 99
 * each over the last 180 days, the newest 0 to 24 still unread), inserted oldest first as they would have
 * arrived (a person's notifications spread over the table, not side by side), and the live-stream
 * chats of the real-time bench (`bench/realtime.ts`), which allow anonymous posts and so notify no one. Every
 * notification carries an `emailed_at` (earlier digests took them), so a digest that runs during a bench finds
 * nothing to send.
 */
export async function seedMessaging(db: Exec): Promise<StepTiming[]> {
  const timings: StepTiming[] = [];
  for (const helper of SQL_HELPERS) await db.query(helper);
  const church = `pg_temp.uid('church:0')`;
  const span = m.notificationDays * 86_400;
  await withoutIndexes(db, timings, ['notifications'], () =>
    step(db, timings, 'notifications', `
      insert into notifications (id, church_id, person_id, content_type, content_id, time_sent, is_new, message, link, delivery_method, triggered_by_person_id, emailed_at)
      select pg_temp.uid('notification:0:' || i || ':' || j), ${church}, pg_temp.uid('person:0:' || i),
             (${textArray(KINDS)})[1 + (i + j) % ${KINDS.length}], 'bench-' || j,
             sent, j < unread, 'Bench notification ' || j || ' for person ' || i, '/notifications/' || j, null,
             pg_temp.uid('person:0:' || ((i + j + 1) % ${SHAPE.big.people})), sent + interval '1 hour'
        from generate_series(0, ${SHAPE.big.people - 1}) i
        cross join lateral (select ${m.minPerPerson} + floor(pg_temp.rnd(i, 61) * ${m.maxPerPerson - m.minPerPerson + 1})::int as n,
                                   floor(pg_temp.rnd(i, 62) * ${m.maxUnread + 1})::int as unread) d
        cross join lateral generate_series(0, n - 1) j
        cross join lateral (select now() - make_interval(secs => (j + pg_temp.rnd(i * 1000 + j, 63)) * ${span} / n) as sent) t
       order by sent`),
  );
  const live = (k: number, title: string) =>
    `(${literal(fixtures.liveConversationId(k))}::uuid, ${church}, 'streamingLive', ${literal(`bench-stream-${k}`)}, ${literal(title)}, true)`;
  await step(db, timings, 'live conversations', `
    insert into conversations (id, church_id, content_type, content_id, title, allow_anonymous_posts)
    values ${live(0, 'Sunday live stream')}, ${live(1, 'Midweek live stream')}`);
  return timings;
}

/** The real-time bench posts into the live chats: a reused database starts them empty again. */
export async function resetMessaging(db: Exec, churchId: string): Promise<void> {
  const ids = [fixtures.liveConversationId(0), fixtures.liveConversationId(1)];
  await db.query('delete from messages where church_id = $1 and conversation_id = any($2::uuid[])', [churchId, ids]);
  await db.query('update conversations set first_post_id = null, last_post_id = null, post_count = 0 where church_id = $1 and id = any($2::uuid[])', [churchId, ids]);
}

/**
 * A connection to the messaging database next to membership's, for a caller that passes none (the fleet child
 * opens one per module it names): on the same server, the database named like membership's with `messaging` in
 * place of `membership`. Undefined when membership's is not a `pg` client (PGlite) or is not named that way.
 */
export async function siblingConnection(membership: Exec): Promise<(Exec & { end(): Promise<void> }) | undefined> {
  const params = (membership as { connectionParameters?: { host: string; port: number; user: string; password?: string | null; database: string } }).connectionParameters;
  if (!params || !/membership$/.test(params.database)) return undefined;
  const client = new Client({ host: params.host, port: params.port, user: params.user, password: params.password ?? undefined, database: params.database.replace(/membership$/, 'messaging') });
  await client.connect();
  return client as unknown as Exec & { end(): Promise<void> };
}
