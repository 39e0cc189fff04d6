import type { FastifyRequest } from 'fastify';
import { requires, hasPermission, isMember, type Claims } from '../src';

const claims = (over: Partial<Claims> = {}): Claims => ({
  id: 'u',
  email: 'u@example.org',
  churchId: 'c',
  personId: 'p',
  permissions: {},
  leaderGroupIds: [],
  ...over,
});
const req = {} as FastifyRequest;

describe('access rules read like the spec’s Permission column', () => {
  it('passes either side of "or"', async () => {
    const rule = requires('People.View or Member');
    expect(rule.text).toBe('People.View or Member');
    expect(await rule.check(req, claims({ permissions: { MembershipApi: ['People.View'] } }), 'MembershipApi')).toBe(true);
    expect(await rule.check(req, claims({ membershipStatus: 'Member' }), 'MembershipApi')).toBe(true);
    expect(await rule.check(req, claims({ permissions: { MembershipApi: ['People.ViewMembers'] } }), 'MembershipApi')).toBe(true);
    expect(await rule.check(req, claims({ membershipStatus: 'Visitor' }), 'MembershipApi')).toBe(false);
  });

  it('treats "View Summary" and "ViewSummary" alike and looks in the right API', () => {
    const auth = claims({ permissions: { AttendanceApi: ['Attendance.ViewSummary'] } });
    expect(hasPermission(auth, 'Attendance.View Summary')).toBe(true);
    expect(hasPermission(auth, 'Attendance.ViewSummary', 'GivingApi')).toBe(true);
    expect(hasPermission(claims({ permissions: { MembershipApi: ['Attendance.ViewSummary'] } }), 'Attendance.View Summary')).toBe(false);
  });

  it('reads Settings.Edit in the API of the service asking', () => {
    const auth = claims({ permissions: { GivingApi: ['Settings.Edit'] } });
    expect(hasPermission(auth, 'Settings.Edit', 'GivingApi')).toBe(true);
    expect(hasPermission(auth, 'Settings.Edit', 'MembershipApi')).toBe(false);
  });

  it('lets Server.Admin pass everything', async () => {
    const admin = claims({ permissions: { MembershipApi: ['Server.Admin'] } });
    expect(await requires('Donations.Edit').check(req, admin, 'GivingApi')).toBe(true);
    expect(isMember(admin)).toBe(true);
  });

  it('knows Group Leader and EditSelf', async () => {
    expect(await requires('Attendance.View or Group Leader').check(req, claims({ leaderGroupIds: ['g'] }), 'AttendanceApi')).toBe(true);
    expect(await requires('People.Edit or EditSelf').check(req, claims({ permissions: { MembershipApi: ['People.EditSelf'] } }), 'MembershipApi')).toBe(true);
  });

  it('refuses a term it cannot read, at start-up', () => {
    expect(() => requires('own record')).toThrow(/unknown access term/);
  });

  it('refuses a permission name that is not in the permission list, at start-up', () => {
    expect(() => requires('Donations.Veiw')).toThrow(/unknown permission "Donations.Veiw"/);
    expect(() => requires('People.View or Peple.Edit')).toThrow(/unknown permission "Peple.Edit"/);
    expect(() => requires('Attendance.View Summary', 'Donations.ViewSummary')).not.toThrow();
  });
});
