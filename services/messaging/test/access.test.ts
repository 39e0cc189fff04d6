import routesJson from '../../../../shared/spec/routes.json';
import { randomUUID } from 'node:crypto';
import { call, expectForeignReferencesRefused, expectRoutesGuarded, foreignId, tokenFor } from '@church/common/testing';
import { useMessaging } from './setup';

const t = useMessaging();

/** Routes the apps call that the spec does not list (all JWT), from `shared/clients/frontend-calls.json`. */
const APP_ROUTES = [
  'DELETE /messaging/messages/:id',
  'POST /messaging/messages/:id/reactions',
  'DELETE /messaging/privatemessages/:id',
  'DELETE /messaging/notifications/my',
  'GET /messaging/texting/credits',
  'GET /messaging/devices/my',
  'DELETE /messaging/emailTemplates/:churchId/:id',
  // the email templates again under the open-source server's controller path inside the module
  'GET /messaging/messaging/emailTemplates',
  'GET /messaging/messaging/emailTemplates/:id',
  'GET /messaging/messaging/emailTemplates/preview/:groupId',
  'POST /messaging/messaging/emailTemplates',
  'POST /messaging/messaging/emailTemplates/send',
  'DELETE /messaging/messaging/emailTemplates/:id',
  'DELETE /messaging/messaging/emailTemplates/:churchId/:id',
  // the reminder editors of events, plan types and tasks
  'GET /messaging/reminders/event/:id',
  'POST /messaging/reminders/event/:id',
  'GET /messaging/reminders/event/:id/preview',
  'GET /messaging/reminders/scope/plan/:id',
  'POST /messaging/reminders/scope/plan/:id',
  'GET /messaging/reminders/task/:id',
  'POST /messaging/reminders/task/:id',
  'DELETE /messaging/reminders/:id',
  // B1App's Web Push enrolment (WebPushHelper)
  'POST /messaging/webpush/subscribe',
  'POST /messaging/webpush/unsubscribe',
];

/** The apps' calls that are public: the VAPID public key every subscribing browser is given. */
const APP_PUBLIC_ROUTES = ['GET /messaging/webpush/publicKey'];

const spec = (routesJson as Array<{ module: string; method: string; path: string; auth: string }>).filter((r) => r.module === 'messaging');

describe('every messaging route', () => {
  it('exists at the spec path and method with the spec access', () => {
    expect(spec).toHaveLength(71);
    const registered = new Map(t.app.routeList.map((r) => [`${r.method} ${r.url.toLowerCase()}`, r.access]));
    for (const r of spec) {
      const access = registered.get(`${r.method} ${r.path.toLowerCase()}`);
      expect([`${r.method} ${r.path}`, access !== undefined]).toEqual([`${r.method} ${r.path}`, true]);
      const kind = access === 'public' ? 'Public' : access === 'internal' ? 'Internal' : 'JWT';
      expect([`${r.method} ${r.path}`, kind]).toEqual([`${r.method} ${r.path}`, r.auth]);
    }
  });

  it('serves the apps\' calls besides the spec\'s, each with its access', () => {
    const registered = new Map(t.app.routeList.map((r) => [`${r.method} ${r.url.toLowerCase()}`, r.access]));
    for (const route of APP_ROUTES) {
      const [method, url] = route.split(' ');
      expect([route, registered.get(`${method} ${url!.toLowerCase()}`) !== undefined]).toEqual([route, true]);
    }
    for (const route of APP_PUBLIC_ROUTES) {
      const [method, url] = route.split(' ');
      expect([route, registered.get(`${method} ${url!.toLowerCase()}`)]).toEqual([route, 'public']);
    }
  });

  it('refuses callers without a valid token or the permission, and never fails for another church', async () => {
    const report = await expectRoutesGuarded(t.app);
    expect(report.guarded).toBe(spec.filter((r) => r.auth === 'JWT').length + APP_ROUTES.length);
    expect(report.internal).toBe(5); // internal/query, internal/blockedips/clear, internal/gdpr/export and /anonymize, internal/owned
    expect(report.total).toBe(report.guarded + report.internal + report.public);
  });
});

describe('references in bodies', () => {
  it("keeps no other church's id: every write route refuses or drops the ids another church's records carry", async () => {
    const churchId = randomUUID();
    const theirs = tokenFor({ churchId: randomUUID(), permissions: 'all', personId: randomUUID() });
    const made = async (url: string, body: unknown) => {
      const res = await call(t.app, 'POST', url, { token: theirs, body });
      expect([url, res.statusCode, res.body]).toEqual([url, 200, expect.any(String)]);
      const answer = res.json() as { id: string } | Array<{ id: string }>;
      return Array.isArray(answer) ? answer[0]!.id : answer.id;
    };
    const conversationId = await made('/messaging/conversations', [{ contentType: 'group', contentId: randomUUID(), title: 'Theirs' }]);
    const templateId = await made('/messaging/emailTemplates', [{ name: 'Theirs', subject: 'Hi', htmlContent: '<p>Hi</p>' }]);
    const report = await expectForeignReferencesRefused(t.app, {
      churchId,
      token: tokenFor({ churchId, permissions: 'all', personId: randomUUID() }),
      foreign: {
        conversationId,
        templateId,
        personId: randomUUID(),
        peopleIds: randomUUID(),
        toPersonId: randomUUID(),
        triggeredByPersonId: randomUUID(),
        groupId: randomUUID(),
        serviceId: randomUUID(),
      },
      // a device's own hardware id when it enrols (device contents check their device is the caller's); a
      // conversation's, notification's or device content's `contentId` names what its `contentType` says (checked
      // below where that is a record of the church)
      notReferences: ['deviceId', 'contentId'],
    });
    expect(report.fields).toEqual(['conversationId', 'groupId', 'peopleIds', 'personId', 'serviceId', 'templateId', 'toPersonId', 'triggeredByPersonId']);
    expect(report.refused).toBeGreaterThanOrEqual(5);
  });

  it("refuses a group's or a person's conversation about another church's group or person", async () => {
    const churchId = randomUUID();
    const token = tokenFor({ churchId, permissions: 'all', personId: randomUUID() });
    const theirGroup = foreignId();
    const theirPerson = foreignId();
    for (const [contentType, contentId] of [['group', theirGroup], ['person', theirPerson]] as const) {
      for (const url of ['/messaging/conversations', '/messaging/conversations/start']) {
        const body = url.endsWith('start') ? { contentType, contentId, comment: 'Hello' } : [{ contentType, contentId, title: 'Theirs' }];
        const res = await call(t.app, 'POST', url, { token, body });
        expect([url, contentType, res.statusCode, res.json()]).toEqual([url, contentType, 400, { errors: [expect.objectContaining({ msg: 'contentId is not a record of this church' })] }]);
      }
    }
  });
});
