import { call } from '@church/common/testing';
import { fakeMembership, makeChurch, makePlaces, useAttendance } from '../setup';

// Issue 31: a caller's string that names an Object.prototype member (`__proto__`, `constructor`, `toString`) is
// looked up nowhere as an object key: it answers as any other unknown value does (a 400 naming the field, or
// nothing found), never a 500.
const membership = fakeMembership();
const t = useAttendance({ overrides: { internal: membership.internal } });

describe('Object.prototype names in what a caller sends', () => {
  it('answers 400 naming the field, or as any unknown value, never a 500', async () => {
    const c = makeChurch();
    const p = await makePlaces(t, c.churchId);
    const token = c.token('all');
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
    for (const name of names) {
      const cases: Array<[string, string, unknown, number, string?]> = [
        ['GET', `/attendance/servicetimes?include=${name},groups&serviceId=${p.serviceId}`, undefined, 200],
        ['GET', `/attendance/campuses/public/${name}`, undefined, 400, 'churchId'],
        ['GET', `/attendance/streaks/person/${name}`, undefined, 400, 'personId'],
        ['GET', `/attendance/sessions/${name}`, undefined, 400, 'id'],
        ['GET', `/attendance/visits?personId=${name}`, undefined, 400, 'personId'],
        ['GET', `/attendance/attendancerecords/groupsummary?weeks=${name}`, undefined, 400, 'weeks'],
        ['GET', `/attendance/attendancerecords/search?startDate=${name}&endDate=2024-01-01`, undefined, 400, 'startDate'],
        ['POST', `/attendance/visits/checkin?serviceId=${name}`, [], 400, 'serviceId'],
        ['POST', '/attendance/campuses', { name: 'East', timezone: name }, 400, 'timezone'],
        ['POST', '/attendance/labeltemplates', { name: 'Tag', labelType: name, width: 2, height: 1 }, 400, 'labelType'],
        ['POST', '/attendance/labeltemplates', { name: 'Tag', labelType: 'nametag', width: 2, height: 1, content: name }, 400, 'content'],
      ];
      for (const [method, url, body, status, param] of cases) {
        const res = await call(t.app, method as 'GET', url, { token, body });
        expect([method, url, res.statusCode]).toEqual([method, url, status]);
        if (param) expect([url, res.json().errors[0].param]).toEqual([url, expect.stringContaining(param)]);
      }
    }
  });
});
