import { Webhook } from 'standardwebhooks';
import { workflowEvents } from '@church/common';
import { call, expectGuarded, fakeServer } from '@church/common/testing';
import { useMembership, makeChurch } from '../setup';
import { addForm } from './fixtures';

// B1Admin:src/settings/components/WebhooksSection.tsx and WebhookEdit.tsx: the webhook list, the editor (events
// catalog `groups`, the secret once on create, regenerate, send test) and the deliveries table.
let receiver: Awaited<ReturnType<typeof fakeServer>>;
let answers: number[] = [];
const t = useMembership({
  config: { OUTBOUND_ALLOW_PRIVATE: 'true' },
  // the subscriber's endpoint, on loopback
  fakes: async () => {
    receiver = await fakeServer(() => ({ status: answers.shift() ?? 200, body: { received: true } }));
    return { close: () => receiver.close() };
  },
});
beforeEach(() => {
  receiver.seen.length = 0;
  answers = [];
});

const admin = (c: Awaited<ReturnType<typeof makeChurch>>) => c.token(['Settings.Edit', 'People.Edit']);
const create = (token: string, body: Record<string, unknown>) => call(t.app, 'POST', '/membership/webhooks', { token, body });

describe('webhook subscriptions', () => {
  it('answers the event catalog by group, as the editor lists it', async () => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'GET', '/membership/webhooks/events', { token: admin(c) });
    expect(res.statusCode).toBe(200);
    expect(res.json().groups.person).toEqual(['person.created', 'person.updated', 'person.destroyed']);
    expect(res.json().groups.groupMember).toContain('group.member.added');
    expect(res.json().all).toContain('donation.created');
  });

  it('creates a webhook, shows its secret once and keeps it encrypted', async () => {
    const c = await makeChurch(t);
    const res = await create(admin(c), { id: '', name: 'CRM', url: `${receiver.url}/hook`, events: ['household.created'], active: true, connectorType: 'standard' });
    expect(res.statusCode).toBe(200);
    const hook = res.json();
    expect(hook).toEqual({
      id: expect.any(String),
      churchId: c.churchId,
      name: 'CRM',
      url: `${receiver.url}/hook`,
      events: ['household.created'],
      active: true,
      connectorType: 'standard',
      consecutiveFailures: 0,
      dateCreated: expect.any(String),
      dateModified: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{40,}$/),
    });
    const [stored] = await t.deps.database.rows<{ secret: string }>('select secret from webhooks where id = $1', [hook.id]);
    expect(stored!.secret).not.toContain(hook.secret.slice(6));
    const list = await call(t.app, 'GET', '/membership/webhooks', { token: admin(c) });
    expect(list.json()).toEqual([{ ...hook, secret: undefined }].map(({ secret: _s, ...rest }) => rest));
    const again = await create(admin(c), { ...hook, secret: undefined, name: 'CRM 2' });
    expect(again.json().secret).toBeUndefined();
    expect(again.json().name).toBe('CRM 2');
  });

  it('refuses unknown events and connectors that call a provider', async () => {
    const c = await makeChurch(t);
    const bad = await create(admin(c), { name: 'X', url: 'https://example.org/h', events: ['person.exploded'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: 'events' });
    const mailchimp = await create(admin(c), { name: 'X', url: '', events: ['person.created'], connectorType: 'mailchimp', connectorConfig: '{"apiKey":"k"}' });
    expect(mailchimp.statusCode).toBe(400);
  });

  describe('in production (private addresses not allowed)', () => {
    const strict = useMembership();

    it('refuses private addresses', async () => {
      const c2 = await makeChurch(strict);
      // The rule its deliveries apply, on save: local names with or without the root's dot, /etc/hosts names of
      // loopback, names that spell a private address (wildcard DNS services), literal private addresses.
      const refused = ['http://127.0.0.1:9/h', 'http://[::ffff:127.0.0.1]/h', 'http://localhost/h', 'https://localhost./h', 'https://ip6-localhost/h', 'https://10.0.0.5.nip.io/h', 'https://127-0-0-1.sslip.io/h', 'http://169.254.169.254/latest', 'ftp://example.org/x'];
      for (const url of refused) {
        const res = await call(strict.app, 'POST', '/membership/webhooks', { token: c2.token(['Settings.Edit']), body: { name: 'X', url, events: ['person.created'] } });
        expect([url, res.statusCode, res.json().errors[0].param]).toEqual([url, 400, 'url']);
      }
    });
  });

  it('keeps each church to its own webhooks and needs Settings.Edit', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    const hook = (await create(admin(c), { name: 'Mine', url: `${receiver.url}/h`, events: ['person.created'] })).json();
    for (const [method, url] of [
      ['GET', `/membership/webhooks/${hook.id}`],
      ['DELETE', `/membership/webhooks/${hook.id}`],
      ['GET', `/membership/webhooks/${hook.id}/deliveries`],
      ['POST', `/membership/webhooks/${hook.id}/test`],
      ['POST', `/membership/webhooks/${hook.id}/regenerate-secret`],
    ] as const) {
      const res = await call(t.app, method, url, { token: admin(other), body: method === 'POST' ? {} : undefined });
      expect([url, res.statusCode]).toEqual([url, 404]);
    }
    const update = await create(admin(other), { id: hook.id, name: 'Stolen', url: `${receiver.url}/h`, events: ['person.created'] });
    expect(update.statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/membership/webhooks', { token: admin(other) })).json()).toEqual([]);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/webhooks', permission: 'Settings.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/webhooks', body: {}, permission: 'Settings.Edit' }, c.churchId);
  });
});

describe('deliveries', () => {
  it('delivers a change of the church signed with the Standard Webhooks scheme, and retries after a 500', async () => {
    const c = await makeChurch(t);
    const hook = (await create(admin(c), { name: 'CRM', url: `${receiver.url}/hook`, events: ['household.created'] })).json();
    answers = [500];
    const saved = await call(t.app, 'POST', '/membership/households', { token: admin(c), body: [{ name: 'Lovelace' }] });
    expect(saved.statusCode).toBe(200);
    await t.drain();
    // The first attempt met a 500, the second a 200: both reached the receiver with the same message id.
    expect(receiver.seen).toHaveLength(2);
    const [first, second] = receiver.seen;
    expect(first!.headers['webhook-id']).toBe(second!.headers['webhook-id']);
    const verified = new Webhook(hook.secret).verify(second!.body, second!.headers as Record<string, string>) as Record<string, unknown>;
    expect(verified).toEqual({
      type: 'household.created',
      event: 'household.created',
      timestamp: expect.any(String),
      occurredAt: expect.any(String),
      churchId: c.churchId,
      data: expect.objectContaining({ id: saved.json()[0].id, name: 'Lovelace' }),
    });
    // A wrong secret does not verify.
    expect(() => new Webhook(`whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`).verify(second!.body, second!.headers as Record<string, string>)).toThrow();
    const deliveries = (await call(t.app, 'GET', `/membership/webhooks/${hook.id}/deliveries`, { token: admin(c) })).json();
    expect(deliveries).toEqual([
      expect.objectContaining({
        webhookId: hook.id,
        event: 'household.created',
        status: 'succeeded',
        attemptCount: 2,
        responseStatus: 200,
        responseBody: '{"received":true}',
        dateCompleted: expect.any(String),
        attempts: [
          expect.objectContaining({ attempt: 1, responseStatus: 500, error: null }),
          expect.objectContaining({ attempt: 2, responseStatus: 200, responseBody: '{"received":true}' }),
        ],
      }),
    ]);
  });

  it('sends nothing for events the webhook did not subscribe to, nor for another church’s changes', async () => {
    const c = await makeChurch(t);
    const other = await makeChurch(t);
    await create(admin(c), { name: 'Groups only', url: `${receiver.url}/hook`, events: ['group.created'] });
    await call(t.app, 'POST', '/membership/households', { token: admin(c), body: [{ name: 'Quiet' }] });
    await call(t.app, 'POST', '/membership/groups', { token: other.token(['Groups.Edit']), body: [{ name: 'Elsewhere' }] });
    await t.drain();
    expect(receiver.seen).toHaveLength(0);
  });

  it('gives up after the last attempt and counts the failure; redeliver sends the same message again', async () => {
    const c = await makeChurch(t);
    const hook = (await create(admin(c), { name: 'Down', url: `${receiver.url}/down`, events: ['person.created'] })).json();
    answers = Array(10).fill(503);
    const test = await call(t.app, 'POST', `/membership/webhooks/${hook.id}/test`, { token: admin(c), body: {} });
    expect(test.statusCode).toBe(200);
    expect(test.json()).toMatchObject({ event: 'person.created', status: 'pending', attemptCount: 0 });
    await t.drain();
    expect(receiver.seen).toHaveLength(10);
    const [delivery] = (await call(t.app, 'GET', `/membership/webhooks/${hook.id}/deliveries`, { token: admin(c) })).json();
    expect(delivery).toMatchObject({ status: 'exhausted', attemptCount: 10, responseStatus: 503 });
    expect(JSON.parse(delivery.payload)).toMatchObject({ event: 'person.created', data: { test: true } });
    expect((await call(t.app, 'GET', `/membership/webhooks/${hook.id}`, { token: admin(c) })).json().consecutiveFailures).toBe(1);
    receiver.seen.length = 0;
    const again = await call(t.app, 'POST', `/membership/webhooks/deliveries/${delivery.id}/redeliver`, { token: admin(c), body: {} });
    expect(again.statusCode).toBe(200);
    await t.drain();
    expect(receiver.seen).toHaveLength(1);
    expect(receiver.seen[0]!.headers['webhook-id']).toBe(`msg_${delivery.id.replace(/-/g, '')}`);
    expect((await call(t.app, 'GET', `/membership/webhooks/${hook.id}`, { token: admin(c) })).json().consecutiveFailures).toBe(0);
  });

  it('a regenerated secret signs the next delivery; the old one no longer verifies', async () => {
    const c = await makeChurch(t);
    const hook = (await create(admin(c), { name: 'Rotate', url: `${receiver.url}/r`, events: ['person.created'] })).json();
    const res = await call(t.app, 'POST', `/membership/webhooks/${hook.id}/regenerate-secret`, { token: admin(c), body: {} });
    expect(res.json()).toEqual({ id: hook.id, secret: expect.stringMatching(/^whsec_/) });
    expect(res.json().secret).not.toBe(hook.secret);
    await call(t.app, 'POST', `/membership/webhooks/${hook.id}/test`, { token: admin(c), body: {} });
    await t.drain();
    const [req] = receiver.seen;
    expect(() => new Webhook(res.json().secret).verify(req!.body, req!.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(hook.secret).verify(req!.body, req!.headers as Record<string, string>)).toThrow();
  });

  it('sends membership’s own events: a group created, a member added, a form submitted', async () => {
    const c = await makeChurch(t);
    await create(admin(c), { name: 'All', url: `${receiver.url}/all`, events: ['group.created', 'group.member.added', 'form.submission.created'] });
    const [group] = (await call(t.app, 'POST', '/membership/groups', { token: c.token(['Groups.Edit']), body: [{ name: 'Choir' }] })).json();
    await call(t.app, 'POST', '/membership/groupmembers', { token: c.token(['GroupMembers.Edit', 'GroupMembers.View']), body: [{ groupId: group.id, personId: c.personId }] });
    const formId = await addForm(t, c.churchId, { contentType: 'form' });
    const submitted = await call(t.app, 'POST', '/membership/formsubmissions', { token: c.token([]), body: [{ formId, answers: [] }] });
    expect(submitted.statusCode).toBe(200);
    await t.drain();
    const events = receiver.seen.map((r) => (r.json as { event: string; data: Record<string, unknown> }));
    expect(events.map((e) => e.event).sort()).toEqual(['form.submission.created', 'group.created', 'group.member.added']);
    expect(events.find((e) => e.event === 'group.created')!.data).toMatchObject({ id: group.id, name: 'Choir' });
    expect(events.find((e) => e.event === 'group.member.added')!.data).toMatchObject({ groupId: group.id, personId: c.personId });
  });

  it('hands every event (not other changes) to doing’s workflow triggers, once, whether or not a webhook listens', async () => {
    const c = await makeChurch(t);
    const [group] = (await call(t.app, 'POST', '/membership/groups', { token: c.token(['Groups.Edit']), body: [{ name: 'Ushers' }] })).json();
    await call(t.app, 'POST', '/membership/groups', { token: c.token(['Groups.Edit']), body: [{ id: group.id, name: 'Ushers', about: 'At the doors' }] });
    await t.drain();
    const forwarded = t.deps.queue.handedOff
      .filter((j) => j.name === workflowEvents.name)
      .flatMap((j) => (j.data as { records: Array<{ churchId: string; event?: string; entityId: string }> }).records)
      .filter((r) => r.churchId === c.churchId);
    // the outbox hands jobs on in no set order
    expect(forwarded.map((r) => [r.event, r.entityId]).sort()).toEqual([
      ['group.created', group.id],
      ['group.updated', group.id],
    ]);
    // the church's audit log holds both changes as well
    const logged = (await call(t.app, 'GET', '/membership/auditLogs?category=group', { token: c.token(['Server.Admin', 'Settings.Edit']) })).json();
    expect(JSON.stringify(logged)).toContain(group.id);
  });

  it('formats Slack and Discord messages and refuses a test event the webhook does not carry', async () => {
    const c = await makeChurch(t);
    const slack = (await create(admin(c), { name: 'Slack', url: `${receiver.url}/s`, events: ['household.created'], connectorType: 'slack' })).json();
    await call(t.app, 'POST', '/membership/households', { token: admin(c), body: [{ name: 'Babbage' }] });
    await t.drain();
    expect(receiver.seen[0]!.json).toEqual({ text: 'household created: Babbage' });
    const wrong = await call(t.app, 'POST', `/membership/webhooks/${slack.id}/test`, { token: admin(c), body: { event: 'group.created' } });
    expect(wrong.statusCode).toBe(400);
  });
});
