import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { memberPermissions, people } from '../../src/db/schema';
import { addForm } from './fixtures';
import { makeChurch, useMembership } from '../setup';

const t = useMembership();

const base = '/membership/memberpermissions';

async function person(churchId: string, firstName: string) {
  const id = randomUUID();
  await t.app.db.insert(people).values({ id, churchId, firstName, lastName: 'Lee', displayName: `${firstName} Lee` });
  return id;
}
async function grant(churchId: string, memberId: string, contentId: string, action = 'admin', emailNotification = false) {
  const id = randomUUID();
  await t.app.db.insert(memberPermissions).values({ id, churchId, memberId, contentId, action, emailNotification });
  return id;
}

/** A church with a form that the church's own person administers and Val may view. */
async function scene() {
  const c = await makeChurch(t);
  const f = await addForm(t, c.churchId, { name: 'Signup' });
  const val = await person(c.churchId, 'Val');
  const adminRow = await grant(c.churchId, c.personId, f, 'admin');
  const valRow = await grant(c.churchId, val, f, 'view', true);
  return { c, f, val, adminRow, valRow };
}

describe('POST /membership/memberpermissions', () => {
  it('grants a member access to a form; granting again updates the row', async () => {
    const { c, f } = await scene();
    const newbie = await person(c.churchId, 'Nia');
    const res = await call(t.app, 'POST', base, { token: c.token(), body: { memberId: newbie, contentId: f, action: 'view' } });
    expect(res.statusCode).toBe(200);
    const [row] = res.json();
    expect(row).toEqual({ id: expect.any(String), churchId: c.churchId, memberId: newbie, contentType: 'form', contentId: f, action: 'view', emailNotification: false, personName: 'Nia Lee', formName: 'Signup' });
    const again = await call(t.app, 'POST', base, { token: c.token(), body: [{ memberId: newbie, contentId: f, action: 'admin', emailNotification: true }] });
    expect(again.json()[0]).toMatchObject({ id: row.id, action: 'admin', emailNotification: true });
    expect(await t.app.db.select().from(memberPermissions).where(eq(memberPermissions.memberId, newbie))).toHaveLength(1);
  });

  it('answers B1Admin’s form members request with the member’s name (forms/components/FormMembers.tsx)', async () => {
    const { c, f, val } = await scene();
    const nia = await person(c.churchId, 'Nia');
    // addPerson: the new row, with the name the screen already knows and ?formId=.
    const added = await call(t.app, 'POST', `${base}?formId=${f}`, { token: c.token(), body: [{ memberId: nia, contentType: 'form', contentId: f, action: 'view', personName: 'Nia Lee' }] });
    expect([added.statusCode, added.json()]).toEqual([200, [expect.objectContaining({ memberId: nia, action: 'view', personName: 'Nia Lee', formName: 'Signup' })]]);
    // handleActionChange: a listed row posted back with its change; answered in input order with names.
    const listed = (await call(t.app, 'GET', `${base}/form/${f}`, { token: c.token() })).json();
    const valRow = listed.find((r: { memberId: string }) => r.memberId === val);
    const changed = await call(t.app, 'POST', `${base}?formId=${f}`, { token: c.token(), body: [{ ...valRow, action: 'admin' }, { ...added.json()[0], emailNotification: true }] });
    expect(changed.json()).toEqual([
      expect.objectContaining({ id: valRow.id, memberId: val, action: 'admin', personName: 'Val Lee', formName: 'Signup' }),
      expect.objectContaining({ memberId: nia, emailNotification: true, personName: 'Nia Lee' }),
    ]);
  });

  it('view-only members, callers without access and other churches cannot grant; nothing is written', async () => {
    const { c, f, val } = await scene();
    const nia = await person(c.churchId, 'Nia');
    expect((await call(t.app, 'POST', base, { token: c.token([], { personId: val }), body: { memberId: nia, contentId: f } })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', base, { token: c.token(['Forms.Edit'], { personId: nia }), body: { memberId: nia, contentId: f } })).statusCode).toBe(401);
    const other = await makeChurch(t);
    expect((await call(t.app, 'POST', base, { token: other.token(['Forms.Admin']), body: { memberId: other.personId, contentId: f } })).statusCode).toBe(404);
    const foreignMember = await call(t.app, 'POST', base, { token: c.token(), body: { memberId: other.personId, contentId: f } });
    expect(foreignMember.statusCode).toBe(404);
    const rows = await t.app.db.select().from(memberPermissions).where(eq(memberPermissions.contentId, f));
    expect(rows).toHaveLength(2);
    expect(await t.app.db.select().from(memberPermissions).where(eq(memberPermissions.churchId, other.churchId))).toEqual([]);
  });

  it('validates and is guarded', async () => {
    const { c, f } = await scene();
    const res = await call(t.app, 'POST', base, { token: c.token(['Forms.Admin']), body: { memberId: c.personId, contentId: f, action: 'owner' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('action');
    await expectGuarded(t.app, { method: 'POST', url: base, body: { memberId: c.personId, contentId: f }, permission: 'Form access' }, c.churchId);
  });
});

describe('GET /membership/memberpermissions/...', () => {
  it('/form/:id lists the form’s members with names; /:id reads one', async () => {
    const { c, f, val, adminRow, valRow } = await scene();
    const res = await call(t.app, 'GET', `${base}/form/${f}`, { token: c.token([], { personId: val }) });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((r: { id: string; personName: string; formName: string }) => [r.id, r.personName, r.formName])).toEqual([
      [adminRow, 'Pat Admin', 'Signup'],
      [valRow, 'Val Lee', 'Signup'],
    ]);
    expect((await call(t.app, 'GET', `${base}/${valRow}`, { token: c.token() })).json()).toMatchObject({ id: valRow, memberId: val, action: 'view', emailNotification: true });
    expect((await call(t.app, 'GET', `${base}/form/${f}`, { token: c.token(['Forms.Edit'], { personId: randomUUID() }) })).statusCode).toBe(401);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `${base}/form/${f}`, { token: other.token(['Forms.Admin']) })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `${base}/${valRow}`, { token: other.token(['Forms.Admin']) })).statusCode).toBe(404);
    await expectGuarded(t.app, { method: 'GET', url: `${base}/form/${f}`, permission: 'Form access' }, c.churchId);
    await expectGuarded(t.app, { method: 'GET', url: `${base}/${valRow}`, permission: 'Form access' }, c.churchId);
  });

  it('/form/:id lists admins before view-only members, whatever their names (B1Admin removes the last row it lists)', async () => {
    const { c, f, val, adminRow, valRow } = await scene();
    const abeId = randomUUID();
    await t.app.db.insert(people).values({ id: abeId, churchId: c.churchId, firstName: 'Abe', lastName: 'Aaron', displayName: 'Abe Aaron' });
    const abeRow = await grant(c.churchId, abeId, f, 'view');
    const listed = (await call(t.app, 'GET', `${base}/form/${f}`, { token: c.token() })).json();
    // admins first; among viewers, the notified (Val) before the others
    expect(listed.map((r: { id: string; action: string }) => [r.id, r.action])).toEqual([
      [adminRow, 'admin'],
      [valRow, 'view'],
      [abeRow, 'view'],
    ]);
    expect(val).toBeDefined();
  });

  it('/form/:id/my answers the caller’s own row', async () => {
    const { c, f, val, valRow } = await scene();
    expect((await call(t.app, 'GET', `${base}/form/${f}/my`, { token: c.token([], { personId: val }) })).json()).toMatchObject({ id: valRow, action: 'view' });
    expect((await call(t.app, 'GET', `${base}/form/${f}/my`, { token: c.token(['Forms.Admin'], { personId: randomUUID() }) })).json()).toEqual({});
    expect((await call(t.app, 'GET', `${base}/form/${f}/my`, { token: c.token([], { personId: randomUUID() }) })).statusCode).toBe(401);
    await expectGuarded(t.app, { method: 'GET', url: `${base}/form/${f}/my`, permission: 'Form access' }, c.churchId);
  });

  it('/member/:id lists a member’s permissions on the forms the caller can reach', async () => {
    const { c, f, val, valRow } = await scene();
    const hidden = await addForm(t, c.churchId, { name: 'Hidden' });
    const hiddenRow = await grant(c.churchId, val, hidden, 'view');
    const asAdminOfF = await call(t.app, 'GET', `${base}/member/${val}`, { token: c.token() });
    expect(asAdminOfF.json().map((r: { id: string }) => r.id)).toEqual([valRow]);
    const asFormsAdmin = await call(t.app, 'GET', `${base}/member/${val}`, { token: c.token(['Forms.Admin'], { personId: randomUUID() }) });
    expect(asFormsAdmin.json().map((r: { id: string }) => r.id).sort()).toEqual([valRow, hiddenRow].sort());
    expect((await call(t.app, 'GET', `${base}/member/${val}`, { token: c.token([], { personId: randomUUID() }) })).statusCode).toBe(401);
    const other = await makeChurch(t);
    expect((await call(t.app, 'GET', `${base}/member/${val}`, { token: other.token(['Forms.Admin']) })).json()).toEqual([]);
    expect(f).toBeDefined();
  });
});

describe('DELETE /membership/memberpermissions/...', () => {
  it('/:id removes one row with edit-level access', async () => {
    const { c, f, val, valRow, adminRow } = await scene();
    expect((await call(t.app, 'DELETE', `${base}/${adminRow}?formId=${f}`, { token: c.token([], { personId: val }) })).statusCode).toBe(401);
    const other = await makeChurch(t);
    expect((await call(t.app, 'DELETE', `${base}/${valRow}?formId=${f}`, { token: other.token(['Forms.Admin']) })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `${base}/${valRow}?formId=${randomUUID()}`, { token: c.token() })).statusCode).toBe(404);
    expect(await t.app.db.select().from(memberPermissions).where(eq(memberPermissions.contentId, f))).toHaveLength(2);
    expect((await call(t.app, 'DELETE', `${base}/${valRow}?formId=${f}`, { token: c.token() })).statusCode).toBe(200);
    const left = await t.app.db.select().from(memberPermissions).where(eq(memberPermissions.contentId, f));
    expect(left.map((r) => r.id)).toEqual([adminRow]);
    await expectGuarded(t.app, { method: 'DELETE', url: `${base}/${adminRow}?formId=${f}`, permission: 'Form access' }, c.churchId);
  });

  it('/member/:id?formId= removes all of a member’s rows on the form', async () => {
    const { c, f, val } = await scene();
    await grant(c.churchId, val, f, 'admin');
    const missing = await call(t.app, 'DELETE', `${base}/member/${val}`, { token: c.token() });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0]).toMatchObject({ param: 'formId', location: 'query' });
    const other = await makeChurch(t);
    expect((await call(t.app, 'DELETE', `${base}/member/${val}?formId=${f}`, { token: other.token(['Forms.Admin']) })).statusCode).toBe(404);
    expect(await t.app.db.select().from(memberPermissions).where(eq(memberPermissions.memberId, val))).toHaveLength(2);
    expect((await call(t.app, 'DELETE', `${base}/member/${val}?formId=${f}`, { token: c.token() })).statusCode).toBe(200);
    expect(await t.app.db.select().from(memberPermissions).where(eq(memberPermissions.memberId, val))).toEqual([]);
    await expectGuarded(t.app, { method: 'DELETE', url: `${base}/member/${val}?formId=${f}`, permission: 'Form access' }, c.churchId);
  });
});
