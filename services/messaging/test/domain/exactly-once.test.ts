import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { notifyPeople, templateEmail } from '@church/common';
import { call, readMailbox, readOutbox } from '@church/common/testing';
import { deliveryLogs, devices, notificationPreferences, notifications } from '../../src/db/schema';
import { sendMailOnce } from '../../src/domain/notify';
import { makeChurch, sleep, useMessaging } from '../setup';
import { openSocket } from '../ws-client';

// The outbox hands a job over again when Redis forgot it had finished (a restart): the same job, by id and payload,
// runs a second time. Each delivering job must then send nothing to whoever it served already.
const t = useMessaging();

/** Runs one job through the queue's own runner as the outbox hands it over: a row with this id, swept and run. */
async function run(id: string, name: string, data: unknown) {
  // Due a moment ago: the sweep's cut-off is the process's clock to the millisecond, the row's the database's to the
  // microsecond, and a sweep in the same millisecond as the insert would leave the row for the next sweep.
  await t.app.deps.database.rows(
    `insert into job_outbox (id, queue, name, data, attempts, backoff_ms, run_at) values ($1, 'messaging', $2, $3::jsonb, 2, 10, now() - interval '1 second')`,
    [id, name, JSON.stringify(data)],
  );
  await t.app.deps.queue.sweep();
  await t.drain();
  // The service's own periodic sweep may have claimed the row a moment before ours: wait for the run to end.
  for (let i = 0; i < 400 && (await t.app.deps.database.rows(`select 1 from job_outbox where id = $1`, [id])).length; i++) {
    await sleep(50);
    await t.drain();
  }
}

/** The same job twice: as it first ran, then handed over again with the same id. */
async function twice(name: string, data: unknown) {
  const id = randomUUID();
  await run(id, name, data);
  await run(id, name, data);
}

const mailTo = (address: string) => readMailbox(t.config).filter((m) => m.to === address);
const pushesTo = async (token: string) => (await readOutbox<{ token: string; body: string }>(t.config.DATA_DIR, 'push')).filter((p) => p.token === token);

describe('delivering jobs run twice (same id) deliver once', () => {
  // a group email, a notification email and the digest are each one such job per address
  it('a mail: one message in the mailbox', async () => {
    const to = `once-${randomUUID().slice(0, 8)}@example.test`;
    await twice('messaging.sendEmail', { key: randomUUID(), message: { to, subject: 'Hello', html: '<p>Hi</p>' } });
    expect(mailTo(to)).toHaveLength(1);
    // a mail handed over before messaging.sendEmail existed, the same
    const legacy = `legacy-${randomUUID().slice(0, 8)}@example.test`;
    await twice('messaging.email', { to: legacy, subject: 'Hello', html: '<p>Hi</p>' });
    expect(mailTo(legacy)).toHaveLength(1);
    // two mails alike are two jobs: both go
    const alike = `alike-${randomUUID().slice(0, 8)}@example.test`;
    for (let i = 0; i < 2; i++) await run(randomUUID(), 'messaging.sendEmail', { key: randomUUID(), message: { to: alike, subject: 'Same', html: '<p>Same</p>' } });
    expect(mailTo(alike)).toHaveLength(2);
  });

  it('a template email: one message, one delivery log and one note on the card', async () => {
    const church = makeChurch();
    t.membership.addChurch(church.churchId, 'Grace');
    const ann = t.membership.addPerson(church.churchId, { firstName: 'Ann', lastName: 'Lee' });
    const saved = await call(t.app, 'POST', '/messaging/emailTemplates', { token: church.token(['People.Edit']), body: [{ name: 'Welcome', subject: 'Hello {{firstName}}', htmlContent: '<p>Welcome</p>' }] });
    const cardId = randomUUID();
    await twice(templateEmail.name, { churchId: church.churchId, templateId: saved.json()[0].id, personId: ann.id, contentType: 'task', contentId: cardId });
    expect(mailTo(ann.email!)).toHaveLength(1);
    expect(await t.app.db.select().from(deliveryLogs).where(eq(deliveryLogs.personId, ann.id))).toHaveLength(1);
    expect(t.app.deps.queue.handedOff.filter((j) => j.name === 'doing.cardNote' && (j.data as { cardId: string }).cardId === cardId)).toEqual([
      { name: 'doing.cardNote', data: { churchId: church.churchId, cardId, note: 'Email sent to Ann Lee' } },
    ]);
  });

  it("a notification's escalation: one socket push, one push to each device and one email per person", async () => {
    const church = makeChurch();
    const person = t.membership.addPerson(church.churchId);
    const token = `ExponentPushToken[${randomUUID()}]`;
    await t.app.db.insert(devices).values({ id: randomUUID(), churchId: church.churchId, personId: person.id, appName: 'B1', pushToken: token });
    await t.app.db.insert(notificationPreferences).values({ id: randomUUID(), churchId: church.churchId, personId: person.id, emailFrequency: 'individual', allowPush: true });
    const ids = [randomUUID()];
    await t.app.db.insert(notifications).values({ id: ids[0]!, churchId: church.churchId, personId: person.id, message: 'Your turn to serve', isNew: true });
    const socket = await openSocket(t.app);
    await call(t.app, 'POST', '/messaging/connections', { token: church.token([], { personId: person.id }), body: { churchId: church.churchId, conversationId: 'alerts', socketId: socket.socketId, personId: person.id } });
    await twice('messaging.deliverNotifications', { churchId: church.churchId, ids });
    await socket.waitFor('notification');
    await sleep(150);
    expect(socket.received.filter((r) => r.action === 'notification')).toHaveLength(1);
    await socket.close();
    expect((await pushesTo(token)).map((p) => p.body)).toEqual(['Your turn to serve']);
    expect(mailTo(person.email!)).toHaveLength(1);
    const logs = await t.app.db.select().from(deliveryLogs).where(and(eq(deliveryLogs.churchId, church.churchId), eq(deliveryLogs.personId, person.id)));
    expect(logs.map((l) => l.channel).sort()).toEqual(['email', 'push']);
  });

  it('notifyPeople: one notification per person, delivered once', async () => {
    const church = makeChurch();
    const person = t.membership.addPerson(church.churchId);
    await twice(notifyPeople.name, { churchId: church.churchId, personIds: [person.id], message: 'A plan needs you', contentType: 'plan', contentId: randomUUID() });
    const rows = await t.app.db.select().from(notifications).where(eq(notifications.personId, person.id));
    expect(rows.map((r) => r.message)).toEqual(['A plan needs you']);
  });

  it('an SMS: one text, its log sent once', async () => {
    const church = makeChurch();
    const person = t.membership.addPerson(church.churchId, { mobilePhone: `+1555${String(Date.now()).slice(-7)}` });
    const res = await call(t.app, 'POST', '/messaging/texting/sendPerson', { token: church.token(['Texting.Send']), body: { personId: person.id, message: 'Choir at 6' } });
    expect(res.json()).toMatchObject({ recipientCount: 1, successCount: 1 });
    const [log] = await t.app.db.select().from(deliveryLogs).where(eq(deliveryLogs.personId, person.id));
    await twice('messaging.sendSms', { deliveryLogId: log!.id });
    const texts = (await readOutbox<{ to: string; body: string }>(t.config.DATA_DIR, 'sms')).filter((s) => s.body === 'Choir at 6' && s.to.endsWith(person.mobilePhone!.slice(-7)));
    expect(texts).toHaveLength(1);
  });
});

describe('a sent mail whose record fails while the database is away', () => {
  it('is recorded once the database answers again, so the job ends and a second run sends nothing', async () => {
    let failing = 2;
    // the database refuses the mail's record twice (PostgreSQL restarting), then answers
    const db = new Proxy(t.app.db, {
      get(target, key, receiver) {
        if (key === 'insert' && failing > 0) {
          failing--;
          return () => {
            throw new Error('Connection terminated unexpectedly');
          };
        }
        return Reflect.get(target, key, receiver);
      },
    });
    const sent: string[] = [];
    const mailer = { send: async (message: { to: string }) => void sent.push(message.to) };
    const key = `mail-${randomUUID()}`;
    const message = { to: 'once@example.test', subject: 'Once', html: '<p>Once</p>' };
    await sendMailOnce({ db, mailer } as never, key, message);
    await sendMailOnce({ db: t.app.db, mailer } as never, key, message);
    expect(failing).toBe(0);
    expect(sent).toEqual(['once@example.test']);
  });
});
