import { brotliDecompressSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { useContent } from '../../setup';
import { church, ok } from '../../helpers';

// The long lists the apps read (a group's calendar, a curated calendar, the sermon archive, the blog) are kept
// per church and data version and compressed once: a write shows in the next read, a compressed answer is the
// same JSON, a client holding it gets a 304, and no church reads another's.

const t = useContent();
const sunday = { start: '2026-01-04T16:00:00.000Z', end: '2026-01-04T17:30:00.000Z' };
const titles = (rows: Array<{ title: string }>) => rows.map((r) => r.title);

/** The answer as a browser gets it: brotli, decoded; and whether its ETag then gets a 304. */
async function compressed(url: string, token?: string) {
  const res = await call(t.app, 'GET', url, { token, headers: { 'accept-encoding': 'gzip, deflate, br' } });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-encoding']).toBe('br');
  const again = await call(t.app, 'GET', url, { token, headers: { 'accept-encoding': 'gzip, deflate, br', 'if-none-match': String(res.headers.etag) } });
  expect(again.statusCode).toBe(304);
  return JSON.parse(brotliDecompressSync(res.rawPayload).toString('utf8'));
}

describe('group calendars', () => {
  it('GET /events/group/:groupId and /events/public/group/:churchId/:groupId follow every write at once, by reach, per church', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const member = randomUUID();
    t.membership.groupsOf.set(member, [groupId]);
    const [open] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId, title: 'Open', ...sunday, recurrenceRule: 'FREQ=WEEKLY' } });
    const publicUrl = `/content/events/public/group/${c.churchId}/${groupId}`;
    expect(titles(await ok(t.app, 'GET', `/content/events/group/${groupId}`, { token: c.anyone }))).toEqual(['Open']);
    expect(titles(await ok(t.app, 'GET', publicUrl))).toEqual(['Open']);

    await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId, title: 'Private', ...sunday, start: '2026-01-05T16:00:00.000Z', end: '2026-01-05T17:00:00.000Z', visibility: 'private' } });
    await ok(t.app, 'POST', '/content/eventExceptions', { token: c.editor, body: { eventId: open.id, exceptionDate: '2026-01-11T16:00:00.000Z' } });
    // the group's members and editors read the private one; anyone else, and the website, do not
    expect(titles(await ok(t.app, 'GET', `/content/events/group/${groupId}`, { token: c.tokenOf(member) }))).toEqual(['Open', 'Private']);
    expect(titles(await ok(t.app, 'GET', `/content/events/group/${groupId}`, { token: c.editor }))).toEqual(['Open', 'Private']);
    const outsider = await ok(t.app, 'GET', `/content/events/group/${groupId}`, { token: c.anyone });
    expect(outsider).toEqual([expect.objectContaining({ id: open.id, exceptionDates: ['2026-01-11T16:00:00.000Z'] })]);
    expect(await compressed(publicUrl)).toEqual(outsider);
    expect(await compressed(`/content/events/group/${groupId}`, c.tokenOf(member))).toHaveLength(2);

    await ok(t.app, 'DELETE', `/content/events/${open.id}`, { token: c.editor });
    expect(await ok(t.app, 'GET', publicUrl)).toEqual([]);
    expect(titles(await ok(t.app, 'GET', `/content/events/group/${groupId}`, { token: c.editor }))).toEqual(['Private']);
    // another church asking for this group (by its own token, or by its own id in the public path) reads nothing
    const other = church();
    expect(await ok(t.app, 'GET', `/content/events/group/${groupId}`, { token: other.editor })).toEqual([]);
    expect(await ok(t.app, 'GET', `/content/events/public/group/${other.churchId}/${groupId}`)).toEqual([]);
  });

  it('GET /curatedEvents/public/calendar/:churchId/:id follows its entries and events, and is a 404 once the calendar is gone', async () => {
    const c = church();
    const groupId = t.membership.group(c.churchId);
    const [cal] = await ok(t.app, 'POST', '/content/curatedCalendars', { token: c.editor, body: { name: 'Church' } });
    const url = `/content/curatedEvents/public/calendar/${c.churchId}/${cal.id}`;
    expect(await ok(t.app, 'GET', url)).toEqual([]);
    await ok(t.app, 'POST', '/content/curatedEvents', { token: c.editor, body: { curatedCalendarId: cal.id, groupId } });
    const [ev] = await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { groupId, title: 'Picnic', ...sunday } });
    expect(titles(await compressed(url))).toEqual(['Picnic']);
    await ok(t.app, 'POST', '/content/events', { token: c.editor, body: { id: ev.id, title: 'Church picnic' } });
    expect(titles(await ok(t.app, 'GET', url))).toEqual(['Church picnic']);
    expect((await call(t.app, 'GET', `/content/curatedEvents/public/calendar/${church().churchId}/${cal.id}`)).statusCode).toBe(404);
    await ok(t.app, 'DELETE', `/content/curatedCalendars/${cal.id}`, { token: c.editor });
    expect((await call(t.app, 'GET', url)).statusCode).toBe(404);
  });
});

describe('GET /content/sermons', () => {
  it('lists the archive, scheduled sermons included, newest first; a save or delete shows at once; per church', async () => {
    const c = church();
    const edit = c.token(['StreamingServices.Edit']);
    const later = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const [hope] = await ok(t.app, 'POST', '/content/sermons', { token: edit, body: [{ title: 'Hope', publishDate: '2026-01-04T10:00:00.000Z' }] });
    expect(titles(await ok(t.app, 'GET', '/content/sermons', { token: c.anyone }))).toEqual(['Hope']);
    await ok(t.app, 'POST', '/content/sermons', { token: edit, body: [{ title: 'Next week', publishDate: later }, { id: hope.id, title: 'Hope, part 1' }] });
    const list = await compressed('/content/sermons', c.anyone);
    expect(titles(list)).toEqual(['Next week', 'Hope, part 1']);
    expect(list[1]).toEqual(await ok(t.app, 'GET', `/content/sermons/${hope.id}`, { token: c.anyone }));
    await ok(t.app, 'DELETE', `/content/sermons/${hope.id}`, { token: edit });
    expect(titles(await ok(t.app, 'GET', '/content/sermons', { token: c.anyone }))).toEqual(['Next week']);
    expect(await ok(t.app, 'GET', '/content/sermons', { token: church().anyone })).toEqual([]);
    expect((await call(t.app, 'GET', '/content/sermons')).statusCode).toBe(401);
  });
});

describe('GET /content/posts', () => {
  it('gives editors every post and others what is published, a scheduled post on time, with author names; per church', async () => {
    const c = church();
    const authorId = randomUUID();
    t.membership.names.set(authorId, 'Pastor Ann');
    const hour = 3_600_000;
    await ok(t.app, 'POST', '/content/posts', {
      token: c.editor,
      body: [
        { title: 'Out', publishDate: new Date(Date.now() - hour).toISOString(), authorId },
        { title: 'Draft' },
        { title: 'Soon', publishDate: new Date(Date.now() + hour).toISOString() },
      ],
    });
    const editorView = await compressed('/content/posts', c.editor);
    expect(titles(editorView).sort()).toEqual(['Draft', 'Out', 'Soon']);
    expect(await ok(t.app, 'GET', '/content/posts', { token: c.anyone })).toEqual([expect.objectContaining({ title: 'Out', authorId, authorName: 'Pastor Ann' })]);
    const start = Date.now();
    const clock = jest.spyOn(Date, 'now');
    try {
      clock.mockReturnValue(start + hour + 60_000);
      expect(titles(await ok(t.app, 'GET', '/content/posts', { token: c.anyone }))).toEqual(['Soon', 'Out']);
    } finally {
      clock.mockRestore();
    }
    await ok(t.app, 'POST', '/content/posts', { token: c.editor, body: { title: 'Fresh', publishDate: new Date(Date.now() - 60_000).toISOString() } });
    expect(titles(await ok(t.app, 'GET', '/content/posts', { token: c.anyone }))).toEqual(['Fresh', 'Out']);
    expect(titles(await ok(t.app, 'GET', '/content/posts', { token: c.editor }))).toHaveLength(4);
    expect(await ok(t.app, 'GET', '/content/posts', { token: church().editor })).toEqual([]);
  });
});
