import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { call, expectGuarded } from '@church/common/testing';
import { clientErrors } from '../../src/db/schema';
import { CLIENT_ERRORS_PER_MINUTE } from '../../src/domain/client-errors';
import { makeChurch, useMembership } from '../setup';

const t = useMembership();

const report = (token: string, body: unknown) => call(t.app, 'POST', '/membership/clientErrors', { token, body });

describe('POST /membership/clientErrors', () => {
  it('is guarded', async () => {
    const c = await makeChurch(t);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/clientErrors', body: { message: 'x' } }, c.churchId);
  });

  it('stores the report with the caller’s church and user, cutting over-long text', async () => {
    const c = await makeChurch(t);
    const userId = randomUUID();
    const res = await report(c.token([], { userId }), { application: 'B1Admin', errorType: 'TypeError', originUrl: 'https://app/x', message: 'm'.repeat(5000), details: 'stack' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: expect.any(String), application: 'B1Admin', errorType: 'TypeError', originUrl: 'https://app/x', message: 'm'.repeat(2000), details: 'stack', createdAt: expect.any(String) });
    const [row] = await t.app.db.select().from(clientErrors).where(eq(clientErrors.id, res.json().id));
    expect(row).toMatchObject({ churchId: c.churchId, userId, message: 'm'.repeat(2000) });
  });

  it(`answers 429 after ${CLIENT_ERRORS_PER_MINUTE} reports a minute from one user, not for others`, async () => {
    const c = await makeChurch(t);
    const token = c.token([], { userId: randomUUID() });
    for (let i = 0; i < CLIENT_ERRORS_PER_MINUTE; i++) expect((await report(token, { message: `e${i}` })).statusCode).toBe(200);
    const limited = await report(token, { message: 'one too many' });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect((await t.app.db.select().from(clientErrors).where(eq(clientErrors.churchId, c.churchId))).length).toBe(CLIENT_ERRORS_PER_MINUTE);
    expect((await report(c.token([], { userId: randomUUID() }), { message: 'someone else' })).statusCode).toBe(200);
  });

  it('refuses bodies over 64 KB and wrong types', async () => {
    const c = await makeChurch(t);
    expect((await report(c.token(), { details: 'x'.repeat(70 * 1024) })).statusCode).toBe(413);
    const bad = await report(c.token(), { message: 42 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].param).toBe('message');
  });
});
