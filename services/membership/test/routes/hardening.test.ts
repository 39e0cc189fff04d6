import { DELIVERY_RETRIES, emailOf } from '@church/common';
import { call } from '@church/common/testing';
import { useMembership, makeChurch } from '../setup';
import { serverAdmin } from '../identity-factories';
import { passwordReset } from '../../src/jobs/password-reset';

// Issue 31 (a caller's string never reaches Object.prototype) and issue 32 (mail and reset jobs retry over an
// outage) for membership.
const t = useMembership();

describe('look-ups by a caller’s string', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('advanced search refuses the field %s with a 400 naming it', async (field) => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'POST', '/membership/people/advancedSearch', { token: c.token(['People.View']), body: [{ field, operator: 'equals', value: 'x' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: '[0].field', location: 'body' });
  });

  it.each(['constructor', '__proto__', 'valueOf'])('advanced search refuses the operator %s with a 400', async (operator) => {
    const c = await makeChurch(t);
    const res = await call(t.app, 'POST', '/membership/people/advancedSearch', { token: c.token(['People.View']), body: [{ field: 'firstName', operator, value: 'x' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: '[0].operator' });
  });

  it.each(['constructor', '__proto__'])('OAuth clients refuse the scope %s', async (scope) => {
    const admin = await serverAdmin(t);
    const res = await call(t.app, 'POST', '/membership/oauth/clients', { token: admin.token, body: { name: 'X', redirectUris: ['https://a.example.test/cb'], scopes: [scope] } });
    expect(res.statusCode).toBe(400);
  });
});

describe('jobs that deliver something to a person', () => {
  it('retry as long as a mail does (about an hour), the reset request included', () => {
    expect({ attempts: passwordReset.attempts, backoffMs: passwordReset.backoffMs }).toEqual(DELIVERY_RETRIES);
    expect({ attempts: emailOf('membership').attempts, backoffMs: emailOf('membership').backoffMs }).toEqual(DELIVERY_RETRIES);
  });
});
