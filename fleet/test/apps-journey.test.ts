import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFleet, type Fleet } from '../src/fleet';
import { gatewayCaller } from './http';

/*
 * A new church's first hour as ChurchApps' staff app runs it, through the gateway over real HTTP: each call is the
 * path, method and body the app's source sends (the client file is named beside it), and each check is what the
 * screen reads back. The apps send every module the token of that module (`apis[].jwt`) and show `errors[0]`.
 */
describe('the staff app’s first hour on the fleet (the apps’ own calls)', () => {
  let fleet: Fleet;
  let dataDir: string;
  /** the module tokens of the chosen church, as `UserHelper.setupApiHelper` keeps them */
  const jwt: Record<string, string> = {};
  let userJwt = '';
  let churchId = '';
  const call = gatewayCaller(() => fleet.url);
  /** `ApiHelper.get/post/delete(path, keyName)`: the module's base address and its token */
  const api = (module: string, keyName: string) => ({
    get: (p: string) => call('GET', `/${module}${p}`, undefined, jwt[keyName]),
    post: (p: string, body: unknown) => call('POST', `/${module}${p}`, body, jwt[keyName]),
    delete: (p: string) => call('DELETE', `/${module}${p}`, undefined, jwt[keyName]),
  });
  const membership = api('membership', 'MembershipApi');
  const attendance = api('attendance', 'AttendanceApi');
  const giving = api('giving', 'GivingApi');
  const doing = api('doing', 'DoingApi');

  const mailTo = async (to: string) => {
    for (let i = 0; i < 100; i++) {
      const dir = path.join(dataDir, 'mail');
      const files = (() => {
        try {
          return readdirSync(dir);
        } catch {
          return [];
        }
      })();
      const mails = files
        .map((f) => {
          try {
            return JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
          } catch {
            return undefined; // being written
          }
        })
        .filter((m) => m?.to === to);
      if (mails.length) return mails[mails.length - 1];
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no mail to ${to}`);
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'apps-journey-'));
    fleet = await startFleet({ port: 0, dataDir, logLevel: 'silent', env: { RATE_LIMIT_ENABLED: 'false' } });
  }, 300_000);
  afterAll(async () => {
    await fleet?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('registers, sets a password from the emailed link, signs in and creates a church (the login package)', async () => {
    // Register.tsx
    const email = 'pastor@journey.test';
    expect((await call('POST', '/membership/users/register', { email, firstName: 'Pat', lastName: 'Pastor', appName: 'B1Admin', appUrl: 'http://localhost:3101' })).status).toBe(200);
    const welcome = await mailTo(email);
    const link = new URL(/href="([^"]+)"/.exec(welcome.html)![1]!.replace(/&amp;/g, '&'));
    const auth = link.searchParams.get('auth')!;
    // LoginSetPassword.tsx: the link is live for the page (timestamp within ten minutes), greets, then sets the password.
    expect(Date.now() - Number(link.searchParams.get('timestamp'))).toBeLessThan(600_000);
    const greet = await call('POST', '/membership/users/login', { authGuid: auth });
    expect(greet.body.user.firstName).toBe('Pat');
    const set = await call('POST', '/membership/users/setPasswordGuid', { authGuid: auth, newPassword: 'long-enough-1', appName: 'B1Admin', appUrl: 'http://localhost:3101' });
    expect(set.body.success).toBe(true);
    // The link is spent now.
    expect((await call('POST', '/membership/users/setPasswordGuid', { authGuid: auth, newPassword: 'another-pass' })).status).toBe(400);
    // LoginPage.tsx handleLoginSuccess: user.jwt, userChurches[] (none yet)
    const first = await call('POST', '/membership/users/login', { email, password: 'long-enough-1' });
    expect(first.status).toBe(200);
    expect(first.body.userChurches).toEqual([]);
    userJwt = first.body.user.jwt;
    // SelectChurchRegister.tsx: churches/add with the user's token answers the church
    const church = await call('POST', '/membership/churches/add', { name: 'Journey Church', address1: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' }, userJwt);
    expect(church.body).toEqual(expect.objectContaining({ id: expect.any(String), name: 'Journey Church' }));
    churchId = church.body.id;
    // then login {jwt: user.jwt} and UserHelper.selectChurch: a token per API
    const again = await call('POST', '/membership/users/login', { jwt: userJwt });
    const uc = again.body.userChurches.find((c: { church: { id: string } }) => c.church.id === churchId);
    for (const api of uc.apis as Array<{ keyName: string; jwt: string }>) jwt[api.keyName] = api.jwt;
    expect(Object.keys(jwt).sort()).toEqual(['AttendanceApi', 'ContentApi', 'DoingApi', 'GivingApi', 'MembershipApi', 'MessagingApi', 'ReportingApi']);
    // UserHelper.checkAccess compares {contentType, action} strings exactly.
    const people = uc.apis.find((a: { keyName: string }) => a.keyName === 'MembershipApi').permissions;
    expect(people).toEqual(expect.arrayContaining([{ contentType: 'People', action: 'Edit' }, { contentType: 'Group Members', action: 'Edit' }]));
    // continueLoginProcess: the person of the user in the church
    expect((await membership.get(`/people/${uc.person.id}`)).body.name.first).toBe('Pat');
  });

  it('adds a person, opens them, and keeps their notes conversation (people/PersonPage.tsx)', async () => {
    const [person] = (await membership.post('/people', [{ id: '', name: { first: 'Ann', last: 'Lee' }, contactInfo: { email: 'ann@journey.test' }, householdId: '' }])).body;
    expect(person.name).toEqual(expect.objectContaining({ first: 'Ann', last: 'Lee' }));
    expect((await membership.get('/people')).body.map((p: { id: string }) => p.id)).toContain(person.id);
    const opened = (await membership.get(`/people/${person.id}`)).body;
    expect(opened.contactInfo.email).toBe('ann@journey.test');
  });

  it('creates a group with labels and adds a member (groups/GroupsPage.tsx reads labelArray)', async () => {
    const [group] = (await membership.post('/groups', [{ id: '', name: 'Youth', categoryName: 'Students', tags: 'standard', labels: 'teens,weekly', trackAttendance: 1 }])).body;
    const list = (await membership.get('/groups')).body;
    const youth = list.find((g: { id: string }) => g.id === group.id);
    expect(youth).toEqual(expect.objectContaining({ tags: 'standard', labels: 'teens,weekly', labelArray: ['teens', 'weekly'], trackAttendance: true }));
    const [person] = (await membership.post('/people', [{ name: { first: 'Tim', last: 'Teen' } }])).body;
    expect((await membership.post('/groupmembers', [{ id: '', groupId: group.id, personId: person.id }])).status).toBe(200);
    expect((await membership.get(`/groupmembers?groupId=${group.id}`)).body.map((m: { personId: string }) => m.personId)).toEqual([person.id]);
  });

  it('sets up a campus, a service and a service time as AttendanceSetup does (new rows with id "")', async () => {
    // settings/components/CampusEdit.tsx saves under membership; attendance owns the rows.
    const [campus] = (await membership.post('/campuses', [{ id: '', name: 'North Campus' }])).body;
    expect((await attendance.get('/campuses')).body.map((c: { id: string }) => c.id)).toContain(campus.id);
    const [service] = (await attendance.post('/services', [{ id: '', campusId: campus.id, name: 'Sunday 9am' }])).body;
    const [time] = (await attendance.post('/servicetimes', [{ id: '', serviceId: service.id, name: '9:00' }])).body;
    expect(time.serviceId).toBe(service.id);
    // Public campus names for the member site (B1App GroupsBrowser.tsx), without a token
    expect((await call('GET', `/membership/campuses/public/${churchId}`)).body).toEqual([{ id: campus.id, name: 'North Campus' }]);
  });

  it('creates a fund, a batch and a donation as the donations screens do (FundEdit, BatchEdit, BulkDonationEntry)', async () => {
    const [fund] = (await giving.post('/funds', [{ id: '', name: 'General', taxDeductible: true }])).body;
    const [batch] = (await giving.post('/donationbatches', [{ name: 'Sunday', batchDate: '2026-11-22' }])).body;
    const [donor] = (await membership.post('/people', [{ name: { first: 'Dee', last: 'Donor' } }])).body;
    const [named] = (await giving.post('/donations', [{ batchId: batch.id, personId: donor.id, amount: '40.00', donationDate: '2026-11-22', method: 'Check', methodDetails: '101' }])).body;
    const [anonymous] = (await giving.post('/donations', [{ batchId: batch.id, personId: '', amount: 10, donationDate: '2026-11-22', method: 'Cash' }])).body;
    expect(anonymous.personId).toBeNull();
    expect((await giving.post('/funddonations', [{ donationId: named.id, fundId: fund.id, amount: 40 }, { donationId: anonymous.id, fundId: fund.id, amount: 10 }])).status).toBe(200);
    const batches = (await giving.get('/donationbatches')).body;
    expect(batches.find((b: { id: string }) => b.id === batch.id)).toEqual(expect.objectContaining({ donationCount: 2, totalAmount: 50 }));
  });

  it('starts a workflow card for each new visitor, as a trigger set on the workflows screen says (membership’s change reaches doing)', async () => {
    // serving/tasks/workflows: WorkflowEdit, WorkflowStepEdit, TriggerEditDialog; WorkflowBoardPage reads the board
    const [workflow] = (await doing.post('/workflows', [{ id: '', name: 'Welcome visitors' }])).body;
    const [step] = (await doing.post('/workflowSteps', [{ id: '', workflowId: workflow.id, name: 'Call them' }])).body;
    const trigger = await doing.post('/workflowTriggers', [{ id: '', name: 'New people', triggerKind: 'event', eventType: 'person.created', workflowId: workflow.id, stepId: step.id, active: true }]);
    expect(trigger.status).toBe(200);
    const [visitor] = (await membership.post('/people', [{ id: '', name: { first: 'Vic', last: 'Visitor' }, membershipStatus: 'Visitor' }])).body;
    let cards: Array<{ associatedWithId: string; stepId: string }> = [];
    for (let i = 0; i < 100 && !cards.length; i++) {
      cards = (await doing.get(`/tasks/board/${workflow.id}`)).body.cards;
      if (!cards.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(cards).toEqual([expect.objectContaining({ associatedWithId: visitor.id, stepId: step.id })]);
  });

  it('starts a card for a child checked in, as a trigger on check-ins says (attendance asks who listens, membership asks doing)', async () => {
    const [workflow] = (await doing.post('/workflows', [{ id: '', name: 'First-time kids' }])).body;
    const [step] = (await doing.post('/workflowSteps', [{ id: '', workflowId: workflow.id, name: 'Welcome the family' }])).body;
    expect((await doing.post('/workflowTriggers', [{ id: '', name: 'Checked in', triggerKind: 'event', eventType: 'attendance.recorded', workflowId: workflow.id, stepId: step.id, active: true }])).status).toBe(200);
    const [service] = (await attendance.post('/services', [{ id: '', name: 'Kids Church' }])).body;
    const [time] = (await attendance.post('/servicetimes', [{ id: '', serviceId: service.id, name: '11:00' }])).body;
    const [group] = (await membership.post('/groups', [{ id: '', name: 'Nursery', trackAttendance: true }])).body;
    const [kid] = (await membership.post('/people', [{ id: '', name: { first: 'Kit', last: 'Kid' } }])).body;
    const checkin = await attendance.post(`/visits/checkin?serviceId=${service.id}`, [{ personId: kid.id, visitSessions: [{ session: { serviceTimeId: time.id, groupId: group.id } }] }]);
    expect(checkin.status).toBe(200);
    let cards: Array<{ associatedWithId: string; stepId: string }> = [];
    for (let i = 0; i < 100 && !cards.length; i++) {
      cards = (await doing.get(`/tasks/board/${workflow.id}`)).body.cards;
      if (!cards.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(cards).toEqual([expect.objectContaining({ associatedWithId: kid.id, stepId: step.id })]);
  });

  it('shows errors the app can print: errors[0] is a sentence outside 400 validation', async () => {
    const missing = await membership.get('/people/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(typeof missing.body.errors[0]).toBe('string');
    const noToken = await call('GET', '/membership/people');
    expect([noToken.status, typeof noToken.body.errors[0]]).toEqual([401, 'string']);
    const bad = await membership.post('/people', [{ id: 'not-a-uuid', name: { first: 'X' } }]);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toEqual(expect.objectContaining({ param: expect.any(String), location: 'body', msg: expect.any(String) }));
  });
});
