import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { templateEmail } from '@church/common';
import { call, readMailbox } from '@church/common/testing';
import { deliveryLogs } from '../../src/db/schema';
import { makeChurch, useMessaging } from '../setup';

// messaging.templateEmail: doing's sendEmail step action hands messaging one person and one of the church's templates.
const t = useMessaging();

describe('messaging.templateEmail', () => {
  it("mails the church's template to the person, merge fields filled in and the subject overridden, with its delivery log", async () => {
    const church = makeChurch();
    t.membership.addChurch(church.churchId, 'Grace & Truth');
    const ann = t.membership.addPerson(church.churchId, { firstName: 'Ann', lastName: 'Lee' });
    const mute = t.membership.addPerson(church.churchId, { firstName: 'Mo', email: null });
    const saved = await call(t.app, 'POST', '/messaging/emailTemplates', {
      token: church.token(['Settings.Edit', 'Groups.Edit', 'People.Edit']),
      body: [{ name: 'Welcome', subject: 'Hello', htmlContent: '<p>Welcome, {{firstName}}, to {{churchName}}</p>' }],
    });
    expect(saved.statusCode).toBe(200);
    const templateId = saved.json()[0].id as string;
    const cardId = randomUUID();
    await t.deps.queue.enqueue(templateEmail, { churchId: church.churchId, templateId, personId: ann.id, subject: 'Glad you came, {{firstName}}', contentType: 'task', contentId: cardId });
    await t.deps.queue.enqueue(templateEmail, { churchId: church.churchId, templateId, personId: mute.id });
    // another church's template sends nothing
    const other = makeChurch();
    t.membership.addChurch(other.churchId, 'Elsewhere');
    const stranger = t.membership.addPerson(other.churchId, { firstName: 'Sam' });
    await t.deps.queue.enqueue(templateEmail, { churchId: other.churchId, templateId, personId: stranger.id });
    await t.drain();

    const mail = readMailbox(t.config).filter((m) => m.to === ann.email);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.subject).toBe('Glad you came, Ann');
    expect(mail[0]!.html).toContain('Welcome, Ann, to Grace &amp; Truth');
    expect(readMailbox(t.config).some((m) => m.to === stranger.email)).toBe(false);
    const logs = await t.app.db.select().from(deliveryLogs).where(eq(deliveryLogs.churchId, church.churchId));
    expect(logs.map((l) => [l.personId, l.status, l.error, l.contentType]).sort()).toEqual(
      [
        [ann.id, 'queued', null, 'task'],
        [mute.id, 'skipped', 'no email address', 'template'],
      ].sort(),
    );
    const elsewhere = await t.app.db.select().from(deliveryLogs).where(eq(deliveryLogs.churchId, other.churchId));
    expect(elsewhere.map((l) => [l.status, l.error])).toEqual([['skipped', 'no such template']]);
  });

  it('tells the workflow card what it did: sent to whom, or skipped and why', async () => {
    const church = makeChurch();
    t.membership.addChurch(church.churchId, 'Grace');
    const ann = t.membership.addPerson(church.churchId, { firstName: 'Ann', lastName: 'Lee' });
    const mute = t.membership.addPerson(church.churchId, { firstName: 'Mo', lastName: 'Quiet', email: null });
    const saved = await call(t.app, 'POST', '/messaging/emailTemplates', { token: church.token(['People.Edit']), body: [{ name: 'Welcome', subject: 'Hello', htmlContent: '<p>Hi</p>' }] });
    const templateId = saved.json()[0].id as string;
    const foreign = await call(t.app, 'POST', '/messaging/emailTemplates', { token: makeChurch().token(['People.Edit']), body: [{ name: 'Theirs', subject: 'x', htmlContent: 'x' }] });
    const [sent, noAddress, notOurs, notACard] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await t.deps.queue.enqueue(templateEmail, { churchId: church.churchId, templateId, personId: ann.id, contentType: 'task', contentId: sent });
    await t.deps.queue.enqueue(templateEmail, { churchId: church.churchId, templateId, personId: mute.id, contentType: 'task', contentId: noAddress });
    await t.deps.queue.enqueue(templateEmail, { churchId: church.churchId, templateId: foreign.json()[0].id, personId: ann.id, contentType: 'task', contentId: notOurs });
    // about something else than a card: no note
    await t.deps.queue.enqueue(templateEmail, { churchId: church.churchId, templateId, personId: ann.id, contentType: 'plan', contentId: notACard });
    await t.drain();
    const notes = t.app.deps.queue.handedOff.filter((j) => j.name === 'doing.cardNote' && (j.data as { churchId: string }).churchId === church.churchId).map((j) => j.data);
    expect(notes).toEqual(
      expect.arrayContaining([
        { churchId: church.churchId, cardId: sent, note: 'Email sent to Ann Lee' },
        { churchId: church.churchId, cardId: noAddress, note: 'Email skipped: no email address' },
        { churchId: church.churchId, cardId: notOurs, note: 'Email skipped: no such template' },
      ]),
    );
    expect(notes).toHaveLength(3);
    expect(readMailbox(t.config).filter((m) => m.to === ann.email)).toHaveLength(2);
  });
});
