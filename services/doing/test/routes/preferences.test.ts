import { randomUUID } from 'node:crypto';
import { call } from '@church/common/testing';
import { makeChurch, useDoing } from '../setup';

const t = useDoing();

const prefs = (token: string, ids: string[]) => call(t.app, 'GET', `/doing/schedulingPreferences/people?ids=${ids.join(',')}`, { token });
const save = (token: string, body: unknown) => call(t.app, 'POST', '/doing/schedulingPreferences', { token, body });

describe('/doing/schedulingPreferences', () => {
  it('saves a person\'s own preference by person (one record each), clears the limit with null, and lists by people', async () => {
    const c = makeChurch();
    const token = c.token();
    const first = await save(token, [{ maxPerMonth: 2, preferredTimes: '9:00 am', householdScheduling: 'apart' }]);
    expect(first.statusCode).toBe(200);
    const [saved] = first.json();
    expect(saved).toEqual({ id: expect.any(String), churchId: c.churchId, personId: c.personId, maxPerMonth: 2, preferredTimes: '9:00 am', householdScheduling: 'apart' });
    // an editor that found none posts a new record: the person's one record is updated, not doubled
    const again = await save(token, [{ personId: c.personId, maxPerMonth: null, preferredTimes: '' }]);
    expect(again.json()[0]).toEqual({ ...saved, maxPerMonth: null, preferredTimes: null });
    expect((await prefs(token, [c.personId, randomUUID()])).json()).toEqual([{ ...saved, maxPerMonth: null, preferredTimes: null }]);
    expect((await prefs(makeChurch().token(), [c.personId])).json()).toEqual([]);
    expect((await prefs(token, [])).json()).toEqual([]);
  });

  it('sets another person\'s only with Plans.Edit; refuses values the editor does not offer, naming the field', async () => {
    const c = makeChurch();
    const volunteer = randomUUID();
    const refused = await save(c.token([]), [{ personId: volunteer, maxPerMonth: 1 }]);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().errors[0]).toBe("Only holders of Plans.Edit can set another person's scheduling preferences");
    expect((await prefs(c.token(), [volunteer])).json()).toEqual([]);
    expect((await save(c.token(['Plans.Edit']), [{ personId: volunteer, maxPerMonth: 1 }])).statusCode).toBe(200);
    const bad = await save(c.token(), [{ householdScheduling: 'sometimes' }]);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ param: '[0].householdScheduling', location: 'body' });
    expect((await save(c.token(), { maxPerMonth: 0 })).json().errors[0]).toMatchObject({ param: 'maxPerMonth' });
  });

  it('autofill honours maxPerMonth: a person at their monthly limit is passed over', async () => {
    const c = makeChurch();
    const token = c.token(['Plans.Edit']);
    const [limited, free] = [randomUUID(), randomUUID()];
    const plan = async (day: string) => (await call(t.app, 'POST', '/doing/plans', { token, body: { name: 'Sunday', serviceDate: day } })).json()[0];
    const position = async (planId: string) => (await call(t.app, 'POST', '/doing/positions', { token, body: { planId, name: 'Greeter' } })).json()[0];
    // limited serves once this month already (and once last month, and once declined this month, which do not
    // count; nor does another church's plan this month); free served twice recently
    await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: (await position((await plan('2030-05-12')).id)).id, personId: limited } });
    await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: (await position((await plan('2030-05-05')).id)).id, personId: limited, status: 'Declined' } });
    const other = makeChurch();
    const theirPlan = (await call(t.app, 'POST', '/doing/plans', { token: other.token(), body: { name: 'Sunday', serviceDate: '2030-05-19' } })).json()[0];
    const theirPosition = (await call(t.app, 'POST', '/doing/positions', { token: other.token(), body: { planId: theirPlan.id, name: 'Greeter' } })).json()[0];
    expect((await call(t.app, 'POST', '/doing/assignments', { token: other.token(), body: { positionId: theirPosition.id, personId: limited } })).statusCode).toBe(200);
    await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: (await position((await plan('2030-04-28')).id)).id, personId: limited } });
    for (const day of ['2030-04-14', '2030-04-21']) await call(t.app, 'POST', '/doing/assignments', { token, body: { positionId: (await position((await plan(day)).id)).id, personId: free } });
    const target = await plan('2030-05-26');
    const greeter = await position(target.id);
    const fill = () => call(t.app, 'POST', `/doing/plans/autofill/${target.id}`, { token, body: { teams: [{ positionId: greeter.id, personIds: [limited, free] }] } });

    // both have 2 recent assignments, so limited (listed first) would go; at 1 a month, limited is passed over
    await save(token, [{ personId: limited, maxPerMonth: 1 }]);
    const res = await fill();
    expect(res.json().assignments.map((a: { personId: string }) => a.personId)).toEqual([free]);
    await call(t.app, 'POST', `/doing/plans/autofill/${target.id}/undo`, { token, body: {} });
    await save(token, [{ personId: limited, maxPerMonth: 2 }]);
    expect((await fill()).json().assignments.map((a: { personId: string }) => a.personId)).toEqual([limited]);
  });
});
