import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { call, expectForeignReferencesRefused, expectRoutesGuarded, tokenFor } from '@church/common/testing';
import { makeChurch, useContent } from './setup';
import { recordsOfAnotherChurch } from './other-church';

const t = useContent();

describe('every content route (both halves)', () => {
  it('refuses callers without a valid token or the permission, and never fails for another church', async () => {
    const report = await expectRoutesGuarded(t.app, {
      // Open to any signed-in user by the spec, with the rule applied per item (event groups) or per user.
      openToAnyUser: ['POST /content/events', 'POST /content/settings/my', 'DELETE /content/settings/my/:id'],
    });
    expect(report.guarded).toBeGreaterThan(40);
    expect(report.public).toBeGreaterThan(15);
    expect(report.total).toBe(report.guarded + report.internal + report.public);
  }, 120_000);
});

const SPEC = path.resolve(__dirname, '../../../../shared/spec/routes.json');
const PREFIXES = ['pages', 'sections', 'elements', 'blocks', 'links', 'globalStyles', 'pageHistory', 'posts', 'redirects', 'settings', 'events', 'eventExceptions', 'curatedCalendars', 'curatedEvents'];
const shape = (p: string) => p.toLowerCase().replace(/:[a-z0-9_]+/gi, ':');

describe('the website half of the spec', () => {
  const run = existsSync(SPEC) ? it : it.skip;
  run('has every route of its tables at its path, method and access', () => {
    const spec = (JSON.parse(readFileSync(SPEC, 'utf8')) as Array<{ method: string; path: string; auth: string; permission: string | null }>).filter((r) =>
      PREFIXES.some((p) => r.path === `/content/${p}` || r.path.startsWith(`/content/${p}/`)),
    );
    expect(spec).toHaveLength(82);
    const registered = new Map(t.app.routeList.map((r) => [`${r.method} ${shape(r.url)}`, r.access]));
    const problems = spec.flatMap((r) => {
      const access = registered.get(`${r.method} ${shape(r.path)}`);
      if (!access) return [`missing ${r.method} ${r.path}`];
      const permission = r.path.startsWith('/content/pageHistory') ? 'Content.Edit' : (r.permission ?? '—');
      // A member also withdraws their own pending event request (B1App MyRequestsPage), beside Content.Edit.
      if (`${r.method} ${r.path}` === 'DELETE /content/events/:id') return access !== 'public' && access !== 'internal' && access.text === 'Content.Edit or own pending request' ? [] : [`${r.method} ${r.path}: ${access === 'public' || access === 'internal' ? access : access.text}`];
      if (r.auth === 'Public') return access === 'public' ? [] : [`${r.method} ${r.path} should be public`];
      if (access === 'public' || access === 'internal') return [`${r.method} ${r.path} should need a token`];
      return access.text === permission ? [] : [`${r.method} ${r.path}: ${access.text}, spec ${permission}`];
    });
    expect(problems).toEqual([]);
  });
});

describe('the website half', () => {
  it('has the 82 routes of the spec and the ones the apps call beside them', () => {
    const website = t.app.routeList.filter((r) => PREFIXES.some((p) => r.url === `/content/${p}` || r.url.startsWith(`/content/${p}/`)));
    // 82 of the spec, GET /events/registerable, the public registration page's GET /events/public/:churchId/:eventId,
    // and the calendar side's 10 under /content/events: conflicts, request, requests/mine, pending, /:id/:action,
    // /:id/rsvp (POST, DELETE), /:id/rsvps, rsvps/group/:groupId, ical;
    // + POST /sections/tree (B1Admin ContentEditor.tsx: section templates, layout switch, AI rewrite)
    // + POST /pages/:id/publish, POST /pages/:id/discard, DELETE /pages/:id/published (its drafts)
    // + GET /events/holidays (B1Admin BulkGroupEventsModal.tsx)
    expect(website).toHaveLength(99);
    const routes = new Set(website.map((r) => `${r.method} ${r.url}`));
    // B1Admin:src/registrations/RegistrationsPage.tsx, B1App GroupsPage.tsx (a literal route beside /:id)
    expect(routes).toContain('GET /content/events/registerable');
    expect(routes).toContain('GET /content/events/public/:churchId/:eventId');
    expect(routes).toContain('GET /content/events/holidays');
    expect(routes).toContain('POST /content/sections/tree');
    expect(routes).toContain('POST /content/pages/:id/publish');
  });
});

describe('event registrations (not in the spec: the routes B1App and B1Admin call)', () => {
  it('has 20 routes under /content/registrations with the access each needs, and messaging\'s internal route', () => {
    const access = new Map(
      t.app.routeList.filter((r) => r.url.startsWith('/content/registrations/')).map((r) => [`${r.method} ${r.url}`, typeof r.access === 'string' ? r.access : r.access.text]),
    );
    expect(Object.fromEntries(access)).toEqual({
      // the public wizard (B1App runs it signed out)
      'POST /content/registrations/register': 'public',
      'POST /content/registrations/coupons/validate': 'public',
      'GET /content/registrations/event/:eventId/count': 'public',
      'GET /content/registrations/types/event/:eventId': 'public',
      'GET /content/registrations/selections/event/:eventId': 'public',
      // the registrant's own, or staff (checked per record: 401 otherwise)
      'GET /content/registrations/:id': '—',
      'GET /content/registrations/person/:personId': '—',
      'PUT /content/registrations/:id': '—',
      'POST /content/registrations/:id/cancel': '—',
      // and signed out with the held sign-up's payKey (a guest of the wizard); 401 without either
      'POST /content/registrations/:id/pay': 'public',
      // B1Admin's registrations screens (Content.Edit)
      'GET /content/registrations/event/:eventId': 'Content.Edit',
      'POST /content/registrations/:id/promote': 'Content.Edit',
      'DELETE /content/registrations/:id': 'Content.Edit',
      'GET /content/registrations/coupons/event/:eventId': 'Content.Edit',
      'POST /content/registrations/types': 'Content.Edit',
      'DELETE /content/registrations/types/:id': 'Content.Edit',
      'POST /content/registrations/selections': 'Content.Edit',
      'DELETE /content/registrations/selections/:id': 'Content.Edit',
      'POST /content/registrations/coupons': 'Content.Edit',
      'DELETE /content/registrations/coupons/:id': 'Content.Edit',
    });
    expect(t.app.routeList.find((r) => r.url === '/content/internal/events/registrations')?.access).toBe('internal');
  });
});

describe('the calendar side', () => {
  it('has rooms, resources, templates and blockouts (the standard set each), six booking routes and the internal occurrences', () => {
    const calendar = t.app.routeList.filter((r) => ['rooms', 'resources', 'eventTemplates', 'calendarBlockouts', 'eventBookings'].some((p) => r.url === `/content/${p}` || r.url.startsWith(`/content/${p}/`)));
    expect(calendar).toHaveLength(4 * 4 + 6);
    const internal = t.app.routeList.filter((r) => r.url === '/content/internal/events/occurrences');
    expect(internal.map((r) => r.access)).toEqual(['internal']);
    const access = new Map(t.app.routeList.map((r) => [`${r.method} ${r.url}`, typeof r.access === 'string' ? r.access : r.access.text]));
    // Writes of the church's facilities and the availability calendar are website editors'; reads any user's.
    expect(access.get('POST /content/rooms')).toBe('Content.Edit');
    expect(access.get('GET /content/rooms')).toBe('—');
    expect(access.get('GET /content/eventBookings/calendar')).toBe('Content.Edit');
    expect(access.get('POST /content/events/ical')).toBe('Content.Edit');
    expect(access.get('POST /content/events/:id/:action')).toBe('Content.Edit');
    expect(access.get('GET /content/events/:id/rsvps')).toBe('Groups.Edit or Group Leader');
  });
});

// Issue 41: the reference walk over every write route of the app (both halves: they are one app), each sent
// bodies whose every id-named field is another church's record.
describe('references in bodies', () => {
  it("keeps no other church's id: every write route refuses or drops the ids another church's records carry", async () => {
    const churchId = randomUUID();
    const report = await expectForeignReferencesRefused(t.app, {
      churchId,
      token: tokenFor({ churchId, permissions: 'all', personId: randomUUID() }),
      foreign: {
        // the module's own records, of another church
        ...(await recordsOfAnotherChurch(t.app)),
        // membership's kinds under fresh ids (the fake's reference check owns every id but the walk's)
        groupId: randomUUID(),
        groupIds: randomUUID(),
        approvalGroupId: randomUUID(),
        formId: randomUUID(),
        personId: randomUUID(),
        authorId: randomUUID(),
        siteId: randomUUID(),
        formSubmissionId: randomUUID(),
      },
      notReferences: [
        // a file's item, polymorphic by `contentType`: checked by its type (a group's files name a group of the
        // church); other types name no record (website: the church's library) or none known (README, Files)
        'contentId',
      ],
    });
    expect(report.fields).toEqual([
      'approvalGroupId',
      'arrangementId',
      'authorId',
      'blockId',
      'curatedCalendarId',
      'eventId',
      'eventIds',
      'formId',
      'formSubmissionId',
      'groupId',
      'groupIds',
      'pageId',
      'parentId',
      'personId',
      'playlistId',
      'registrationMemberId',
      'registrationTypeId',
      'resourceId',
      'roomId',
      'roomIds',
      'sectionId',
      'selectionId',
      'sermonId',
      'siteId',
      'songDetailId',
      'songId',
      'targetBlockId',
    ]);
    // 75 of the 212 bodies are refused by name (the rest answer on other grounds: a required field, a 404, a read-only route)
    expect(report.refused).toBeGreaterThanOrEqual(75);
  }, 300_000);
});

describe('the media half', () => {
  // 85 of the spec's tables, plus the names B1Admin calls for the channel imports (youtubeImport, vimeoImport)
  // and the 9 sheet-music routes under the provider's own name (/content/praiseCharts, B1Admin and B1App),
  // and the 5 routes of a church's own storage (/content/storage, B1Admin StorageSettingsEdit.tsx)
  it('has the 85 routes of the media half and the apps\' 16 others', () => {
    const prefixes = ['storage', 'praiseCharts', 'sermons', 'playlists', 'streamingServices', 'preview', 'files', 'gallery', 'stock', 'bibles', 'songs', 'songDetails', 'songDetailLinks', 'arrangements', 'arrangementKeys', 'sheetMusicProvider', 'support'];
    const media = t.app.routeList.filter((r) => prefixes.some((p) => r.url === `/content/${p}` || r.url.startsWith(`/content/${p}/`)));
    expect(media).toHaveLength(101);
    const routes = new Set(t.app.routeList.map((r) => `${r.method} ${r.url}`));
    for (const route of [
      'GET /content/sermons/public/presenterSample',
      'GET /content/sermons/videoHostBImport/:channelId',
      'GET /content/sermons/youtubeImport/:channelId',
      'GET /content/sermons/vimeoImport/:channelId',
      'DELETE /content/playlists/:id',
      'GET /content/streamingServices/:id/hostChat',
      'GET /content/preview/data/:key',
      'POST /content/files/postUrl',
      'DELETE /content/gallery/:folder/:image',
      'POST /content/stock/search',
      'GET /content/bibles/:translationKey/verses/:startVerseKey-:endVerseKey',
      'POST /content/songs/import',
      'POST /content/songDetails/create',
      'GET /content/songDetailLinks/songDetail/:songDetailId',
      'POST /content/arrangements/presenterApp/missing',
      'GET /content/arrangementKeys/presenter/:churchId/:id',
      'POST /content/support/createAudio',
      'GET /content/sheetMusicProvider/library',
      'GET /content/praiseCharts/access',
      'GET /content/praiseCharts/arrangement/raw/:id',
      'GET /content/praiseCharts/download',
      'POST /content/storage/exchange',
      'DELETE /content/storage/providers/:id',
    ]) {
      expect(routes).toContain(route);
    }
  });
});

/** Placeholders as `shared/tools/route-coverage.mjs` fills them. */
function placeholders(url: string): string {
  return url
    .replace(':startVerseKey-:endVerseKey', 'JHN.3.16-JHN.3.17')
    .replace(':contentType', 'group')
    .replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => (/id$/i.test(name) ? randomUUID() : 'word'));
}

describe('route coverage of the media half', () => {
  it('no route answers a server error, with or without a church token (route-coverage.mjs inputs)', async () => {
    const c = makeChurch();
    const token = c.token('all');
    const media = t.app.routeList.filter((r) => /^\/content\/(sermons|playlists|streamingServices|preview|files|gallery|stock|bibles|songs|songDetails|songDetailLinks|arrangements|arrangementKeys|sheetMusicProvider|praiseCharts|storage|support)(\/|$)/i.test(r.url));
    const failures: string[] = [];
    for (const route of media) {
      const url = placeholders(route.url);
      const body = ['POST', 'PATCH'].includes(route.method) ? {} : undefined;
      for (const auth of [undefined, token]) {
        const res = await call(t.app, route.method as 'GET', url, { token: auth, body });
        // The preview asks membership for the church (here its fake, which knows none: 404); membership away would be
        // its 502, a downstream failure, not this module's.
        const downstream = res.statusCode === 502 && route.url.startsWith('/content/preview/');
        if (res.statusCode >= 500 && !downstream) failures.push(`${route.method} ${url} ${auth ? 'with' : 'without'} a token: ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (res.statusCode === 404 && /Route .* not found/.test(res.body)) failures.push(`${route.method} ${url}: missing`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
