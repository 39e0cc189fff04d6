import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { forms, memberPermissions, questions } from '../../src/db/schema';
import { addForm } from './fixtures';
import { makeChurch, useMembership } from '../setup';

const t = useMembership();

async function grant(churchId: string, memberId: string, formId: string, action = 'admin') {
  await t.app.db.insert(memberPermissions).values({ id: randomUUID(), churchId, memberId, contentId: formId, action });
}
const names = (res: { json(): Array<{ name: string }> }) => res.json().map((f) => f.name);

describe('GET /membership/forms and /archived', () => {
  it('Forms.Admin sees every live form; Forms.Edit sees assigned forms plus non-member forms', async () => {
    const c = await makeChurch(t);
    const mine = await addForm(t, c.churchId, { name: 'B assigned' });
    await addForm(t, c.churchId, { name: 'C not assigned' });
    await addForm(t, c.churchId, { name: 'A person fields', contentType: 'person' });
    await addForm(t, c.churchId, { name: 'D removed', removed: true });
    await addForm(t, c.churchId, { name: 'E archived', archived: true });
    await addForm(t, c.churchId, { name: 'F archived person', archived: true, contentType: 'person' });
    await grant(c.churchId, c.personId, mine, 'view');
    const admin = await call(t.app, 'GET', '/membership/forms', { token: c.token(['Forms.Admin']) });
    expect(admin.statusCode).toBe(200);
    expect(names(admin)).toEqual(['A person fields', 'B assigned', 'C not assigned']);
    const editor = await call(t.app, 'GET', '/membership/forms', { token: c.token(['Forms.Edit']) });
    expect(names(editor)).toEqual(['A person fields', 'B assigned']);
    const archived = await call(t.app, 'GET', '/membership/forms/archived', { token: c.token(['Forms.Edit']) });
    expect(names(archived)).toEqual(['F archived person']);
    const archivedAdmin = await call(t.app, 'GET', '/membership/forms/archived', { token: c.token(['Forms.Admin']) });
    expect(names(archivedAdmin)).toEqual(['E archived', 'F archived person']);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', '/membership/forms', { token: other.token(['Forms.Admin']) })).json()).toEqual([]);
  });

  it('answers whole records', async () => {
    const c = await makeChurch(t);
    const id = await addForm(t, c.churchId, { name: 'Signup', restricted: true, followUpSubject: 'Hi', accessEndTime: new Date('2030-01-01T00:00:00Z') });
    const res = await call(t.app, 'GET', '/membership/forms', { token: c.token(['Forms.Admin']) });
    expect(res.json()).toEqual([
      {
        id,
        churchId: c.churchId,
        name: 'Signup',
        contentType: 'form',
        restricted: true,
        accessStartTime: null,
        accessEndTime: '2030-01-01T00:00:00.000Z',
        archived: false,
        autoCreatePerson: false,
        followUpSubject: 'Hi',
        followUpBody: null,
        thankYouMessage: null,
      },
    ]);
  });

  it('is guarded', async () => {
    const c = await makeChurch(t);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/forms', permission: 'Forms.Edit' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: '/membership/forms/archived', permission: 'Forms.Edit' }, c.churchId);
  });
});

describe('GET /membership/forms/:id (Form access)', () => {
  it('admins and members with a permission read it; others get 401; other churches 404', async () => {
    const c = await makeChurch(t);
    const id = await addForm(t, c.churchId, { name: 'Volunteer signup' });
    expect((await call(t.app, 'GET', `/membership/forms/${id}`, { token: c.token(['Forms.Admin']) })).json()).toMatchObject({ id, name: 'Volunteer signup' });
    expect((await call(t.app, 'GET', `/membership/forms/${id}`, { token: c.token(['Forms.Edit']) })).statusCode).toBe(401);
    await grant(c.churchId, c.personId, id, 'view');
    expect((await call(t.app, 'GET', `/membership/forms/${id}`, { token: c.token() })).statusCode).toBe(200);
    const personForm = await addForm(t, c.churchId, { contentType: 'person' });
    expect((await call(t.app, 'GET', `/membership/forms/${personForm}`, { token: c.token(['Forms.Edit'], { personId: randomUUID() }) })).statusCode).toBe(200);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `/membership/forms/${id}`, { token: other.token(['Forms.Admin']) })).statusCode).toBe(404);
    await expectGuarded(t.app, { method: 'GET', url: `/membership/forms/${id}`, permission: 'Form access' }, c.churchId);
  });
});

describe('GET /membership/forms/standalone/:id', () => {
  it('serves unrestricted standalone forms to callers of any church, restricted ones only to their church', async () => {
    const c = await makeChurch(t);
    const open = await addForm(t, c.churchId, { name: 'Open' });
    const closed = await addForm(t, c.churchId, { name: 'Closed', restricted: true });
    const personForm = await addForm(t, c.churchId, { contentType: 'person' });
    const visitor = await makeChurch(t);
    const asVisitor = visitor.token();
    expect((await call(t.app, 'GET', `/membership/forms/standalone/${open}?churchId=${c.churchId}`, { token: asVisitor })).json()).toMatchObject({ id: open, name: 'Open' });
    expect((await call(t.app, 'GET', `/membership/forms/standalone/${closed}?churchId=${c.churchId}`, { token: asVisitor })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/membership/forms/standalone/${closed}?churchId=${c.churchId}`, { token: c.token() })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/membership/forms/standalone/${closed}`, { token: c.token() })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/membership/forms/standalone/${personForm}?churchId=${c.churchId}`, { token: c.token() })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/membership/forms/standalone/${open}?churchId=${visitor.churchId}`, { token: asVisitor })).statusCode).toBe(404);
    const bad = await call(t.app, 'GET', `/membership/forms/standalone/${open}?churchId=x`, { token: asVisitor });
    expect(bad.json().errors[0]).toMatchObject({ param: 'churchId', location: 'query' });
    await expectGuarded(t.app, { method: 'GET', url: `/membership/forms/standalone/${open}?churchId=${c.churchId}` }, c.churchId);
  });
});

describe('POST /membership/forms', () => {
  it('creates forms; the creator of a standalone form gets an admin member permission', async () => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'POST', '/membership/forms', {
      token: c.token(['Forms.Edit']),
      body: [{ name: 'Signup', autoCreatePerson: true, followUpSubject: 'Thanks {{firstName}}', followUpBody: 'Hello' }, { name: 'Extra fields', contentType: 'person' }],
    });
    expect(res.statusCode).toBe(200);
    const [signup, extra] = res.json();
    expect(signup).toEqual({
      id: expect.any(String),
      churchId: c.churchId,
      name: 'Signup',
      contentType: 'form',
      restricted: false,
      accessStartTime: null,
      accessEndTime: null,
      archived: false,
      autoCreatePerson: true,
      followUpSubject: 'Thanks {{firstName}}',
      followUpBody: 'Hello',
      thankYouMessage: null,
    });
    const perms = await t.app.db.select().from(memberPermissions).where(eq(memberPermissions.churchId, c.churchId));
    expect(perms.map((p) => [p.memberId, p.contentId, p.action])).toEqual([[c.personId, signup.id, 'admin']]);
    expect(extra.contentType).toBe('person');
    // the editor can now open and change their own form
    const update = await call(t.app, 'POST', '/membership/forms', { token: c.token(['Forms.Edit']), body: { id: signup.id, archived: true } });
    expect(update.json()[0]).toMatchObject({ id: signup.id, name: 'Signup', archived: true });
  });

  it('updating needs Form access; other churches get 404 and nothing changes', async () => {
    const c = await makeChurch(t);
    const id = await addForm(t, c.churchId, { name: 'Locked' });
    const noAccess = await call(t.app, 'POST', '/membership/forms', { token: c.token(['Forms.Edit']), body: { id, name: 'Changed' } });
    expect(noAccess.statusCode).toBe(401);
    await grant(c.churchId, c.personId, id, 'view');
    const viewOnly = await call(t.app, 'POST', '/membership/forms', { token: c.token(['Forms.Edit']), body: { id, name: 'Changed' } });
    expect(viewOnly.statusCode).toBe(401);
    const other = await makeChurch(t);
    const foreign = await call(t.app, 'POST', '/membership/forms', { token: other.token(['Forms.Admin']), body: [{ name: 'New' }, { id, name: 'Changed' }] });
    expect(foreign.statusCode).toBe(404);
    expect(await t.app.db.select().from(forms).where(eq(forms.churchId, other.churchId))).toEqual([]);
    const [row] = await t.app.db.select().from(forms).where(eq(forms.id, id));
    expect(row!.name).toBe('Locked');
  });

  it('validates and is guarded', async () => {
    const c = await makeChurch(t);
    const token = c.token(['Forms.Admin']);
    const noName = await call(t.app, 'POST', '/membership/forms', { token, body: { restricted: true } });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().errors[0].param).toBe('name');
    const badDate = await call(t.app, 'POST', '/membership/forms', { token, body: [{ name: 'x', accessStartTime: 'soon' }] });
    expect(badDate.json().errors[0].param).toBe('[0].accessStartTime');
    await expectGuarded(t.app, { method: 'POST', url: '/membership/forms', body: { name: 'x' }, permission: 'Forms.Edit' }, c.churchId);
  });
});

describe('DELETE /membership/forms/:id', () => {
  it('soft-deletes with Form access at edit level', async () => {
    const c = await makeChurch(t);
    const id = await addForm(t, c.churchId);
    await grant(c.churchId, c.personId, id, 'view');
    expect((await call(t.app, 'DELETE', `/membership/forms/${id}`, { token: c.token() })).statusCode).toBe(401);
    const other = await makeChurch(t);
    expect((await call(t.app, 'DELETE', `/membership/forms/${id}`, { token: other.token(['Forms.Admin']) })).statusCode).toBe(404);
    expect((await t.app.db.select().from(forms).where(eq(forms.id, id)))[0]!.removed).toBe(false);
    await t.app.db.update(memberPermissions).set({ action: 'admin' }).where(and(eq(memberPermissions.contentId, id)));
    expect((await call(t.app, 'DELETE', `/membership/forms/${id}`, { token: c.token() })).statusCode).toBe(200);
    expect((await t.app.db.select().from(forms).where(eq(forms.id, id)))[0]!.removed).toBe(true);
    expect((await call(t.app, 'GET', `/membership/forms/${id}`, { token: c.token(['Forms.Admin']) })).statusCode).toBe(404);
    await expectGuarded(t.app, { method: 'DELETE', url: `/membership/forms/${await addForm(t, c.churchId)}`, permission: 'Form access' }, c.churchId);
  });
});

// B1Admin:src/forms/FormsPage.tsx duplicates a form with POST /forms/duplicate/:id and lists the forms again.
describe('POST /membership/forms/duplicate/:id', () => {
  it('copies a readable form with its live questions, in order and with sub-question links, for form editors', async () => {
    const c = await makeChurch(t);
    const admin = c.token(['Forms.Admin']);
    const formId = await addForm(t, c.churchId, { name: 'Signup', archived: true, restricted: true, thankYouMessage: 'Thanks' });
    const [parent] = (await call(t.app, 'POST', '/membership/questions', { token: admin, body: { formId, title: 'Coming?', fieldType: 'Multiple Choice', choices: [{ value: 'y', text: 'Yes' }], required: true } })).json();
    await call(t.app, 'POST', '/membership/questions', { token: admin, body: [{ formId, title: 'Guests', parentId: parent.id }, { formId, title: 'Gone' }] });
    const gone = (await t.app.db.select().from(questions).where(and(eq(questions.formId, formId), eq(questions.title, 'Gone'))))[0]!;
    await call(t.app, 'DELETE', `/membership/questions/${gone.id}?formId=${formId}`, { token: admin });

    const res = await call(t.app, 'POST', `/membership/forms/duplicate/${formId}`, { token: admin, body: {} });
    expect(res.statusCode).toBe(200);
    const copy = res.json();
    expect(copy).toMatchObject({ name: 'Signup (Copy)', archived: false, restricted: true, thankYouMessage: 'Thanks', contentType: 'form' });
    expect(copy.id).not.toBe(formId);
    const copied = (await call(t.app, 'GET', `/membership/questions?formId=${copy.id}`, { token: admin })).json();
    expect(copied.map((q: { title: string }) => q.title)).toEqual(['Coming?', 'Guests']);
    expect(copied[0]).toMatchObject({ fieldType: 'Multiple Choice', choices: [{ value: 'y', text: 'Yes' }], required: true });
    expect(copied[1].parentId).toBe(copied[0].id);
    // The source is untouched.
    expect((await call(t.app, 'GET', `/membership/questions?formId=${formId}`, { token: admin })).json()).toHaveLength(2);
    // An editor copies a form they hold a permission on, and becomes the copy's admin.
    const viewer = await addForm(t, c.churchId, { name: 'Shared' });
    await grant(c.churchId, c.personId, viewer, 'view');
    const editor = c.token(['Forms.Edit']);
    const mine = (await call(t.app, 'POST', `/membership/forms/duplicate/${viewer}`, { token: editor, body: {} })).json();
    const perms = await t.app.db.select().from(memberPermissions).where(eq(memberPermissions.contentId, mine.id));
    expect(perms.map((p) => [p.memberId, p.action])).toEqual([[c.personId, 'admin']]);
    const other = await addForm(t, c.churchId, { name: 'Not mine' });
    expect((await call(t.app, 'POST', `/membership/forms/duplicate/${other}`, { token: editor, body: {} })).statusCode).toBe(401);
    const elsewhere = await makeChurch(t);
    expect((await call(t.app, 'POST', `/membership/forms/duplicate/${formId}`, { token: elsewhere.token(['Forms.Admin']), body: {} })).statusCode).toBe(404);
    await expectGuarded(t.app, { method: 'POST', url: `/membership/forms/duplicate/${formId}`, body: {}, permission: 'Forms.Edit' }, c.churchId);
  });
});

// B1Admin:src/components/AssociatedForms.tsx lists the forms of person records with ?contentType=person.
describe('GET /membership/forms?contentType=', () => {
  it('narrows the list to one content type', async () => {
    const c = await makeChurch(t);
    await addForm(t, c.churchId, { name: 'Sign-up' });
    await addForm(t, c.churchId, { name: 'Person fields', contentType: 'person' });
    const res = await call(t.app, 'GET', '/membership/forms?contentType=person', { token: c.token(['Forms.Admin']) });
    expect(names(res)).toEqual(['Person fields']);
    expect(names(await call(t.app, 'GET', '/membership/forms', { token: c.token(['Forms.Admin']) }))).toEqual(['Person fields', 'Sign-up']);
  });
});
