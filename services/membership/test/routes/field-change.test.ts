import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { personFieldChange } from '@church/common';
import { auditLogs, people } from '../../src/db/schema';
import { useMembership } from '../setup';
import { joinAsGuest, registeredChurch } from '../identity-factories';
import { addPerson } from './fixtures';

const t = useMembership();

type Job = Parameters<typeof t.deps.queue.enqueue<typeof personFieldChange.schema>>[1];
const run = async (data: Job) => {
  await t.deps.queue.enqueue(personFieldChange, data);
  await t.drain();
};
// the card's notes membership handed to doing (no doing in this process: the queue keeps what it handed off)
const notesOf = async (cardId: string) =>
  t.deps.queue.handedOff.filter((j) => j.name === 'doing.cardNote' && (j.data as { cardId: string }).cardId === cardId).map((j) => j.data as { churchId: string; cardId: string; note: string });
const personOf = async (id: string) => (await t.app.db.select().from(people).where(eq(people.id, id)))[0]!;

// Doing's setField step action hands the change to membership (membership.personFieldChange), which applies it only
// while whoever configured the action may edit people, and tells the card what happened (doing.cardNote).
describe('membership.personFieldChange', () => {
  it('sets the field when the configurer holds People.Edit now, reports it, and notes it on the card', async () => {
    const a = await registeredChurch(t);
    const ann = await addPerson(t, a.church.id, { firstName: 'Ann', lastName: 'Able' });
    const cardId = randomUUID();
    await run({ churchId: a.church.id, personId: ann.id, field: 'lastName', value: 'Baker', configuredBy: { userId: a.user.id, personId: a.personId }, cardId });
    const after = await personOf(ann.id);
    expect(after).toMatchObject({ lastName: 'Baker', displayName: 'Ann Baker' });
    expect(await notesOf(cardId)).toEqual([{ churchId: a.church.id, cardId, note: 'Set lastName' }]);
    await t.drain();
    const logged = await t.app.db.select().from(auditLogs).where(eq(auditLogs.entityId, ann.id));
    expect(logged.map((l) => l.action)).toContain('updated');
    // a value the person-edit route refuses changes nothing and says so
    const bad = randomUUID();
    await run({ churchId: a.church.id, personId: ann.id, field: 'birthDate', value: 'not a date', configuredBy: { userId: a.user.id }, cardId: bad });
    expect((await personOf(ann.id)).birthDate).toBeNull();
    expect((await notesOf(bad))[0]!.note).toMatch(/^Field change refused: birthDate/);
    const unknown = randomUUID();
    await run({ churchId: a.church.id, personId: ann.id, field: 'churchId', value: randomUUID(), configuredBy: { userId: a.user.id }, cardId: unknown });
    expect((await personOf(ann.id)).churchId).toBe(a.church.id);
    expect((await notesOf(unknown))[0]!.note).toBe('Field change refused: churchId is not a field of a person');
  });

  it('changes nothing when the configurer may not edit people (now), and notes the refusal', async () => {
    const a = await registeredChurch(t);
    const guest = await joinAsGuest(t, a.church.id);
    const ann = await addPerson(t, a.church.id, { firstName: 'Ann', lastName: 'Able' });
    const cardId = randomUUID();
    await run({ churchId: a.church.id, personId: ann.id, field: 'lastName', value: 'Baker', configuredBy: { userId: guest.user.id }, cardId });
    expect((await personOf(ann.id)).lastName).toBe('Able');
    expect(await notesOf(cardId)).toEqual([{ churchId: a.church.id, cardId, note: `Field change refused: ${guest.user.firstName} ${guest.user.lastName} may not edit people` }]);
    // without a configurer, or one of another church only
    const other = await registeredChurch(t);
    for (const configuredBy of [{}, { userId: other.user.id }]) {
      const card = randomUUID();
      await run({ churchId: a.church.id, personId: ann.id, field: 'lastName', value: 'Baker', configuredBy, cardId: card });
      expect((await notesOf(card))[0]!.note).toMatch(/^Field change refused: .* may not edit people$/);
    }
    expect((await personOf(ann.id)).lastName).toBe('Able');
  });

  it("leaves another church's person alone", async () => {
    const a = await registeredChurch(t);
    const b = await registeredChurch(t);
    const theirs = await addPerson(t, b.church.id, { firstName: 'Bo', lastName: 'Other' });
    const cardId = randomUUID();
    await run({ churchId: a.church.id, personId: theirs.id, field: 'lastName', value: 'Taken', configuredBy: { userId: a.user.id }, cardId });
    expect((await personOf(theirs.id)).lastName).toBe('Other');
    expect(await notesOf(cardId)).toEqual([{ churchId: a.church.id, cardId, note: 'Field change skipped: person not found' }]);
    // without a card nothing is noted
    await run({ churchId: a.church.id, personId: theirs.id, field: 'lastName', value: 'Taken', configuredBy: { userId: a.user.id } });
    expect((await personOf(theirs.id)).lastName).toBe('Other');
  });
});
