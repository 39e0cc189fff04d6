import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, expectGuarded, type TestApp } from '@church/common/testing';
import { makeChurch, useMembership } from '../setup';
import { addGroup, addPerson, addToGroup } from './fixtures';

const ask = (t: TestApp, token: string, text: string) => call(t.app, 'POST', '/membership/query/members', { token, body: { text, subDomain: 'x', siteUrl: 'https://x' } });
const ids = (res: { json(): { people: Array<{ id: string }> } }) => res.json().people.map((p) => p.id).sort();
function bornAgo(years: number, days = 0): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear() - years, now.getUTCMonth(), now.getUTCDate() - days));
}

async function people(t: TestApp) {
  const c = await makeChurch(t);
  const youth = await addGroup(t, c.churchId, 'Youth Group');
  const man = await addPerson(t, c.churchId, { gender: 'Male', birthDate: bornAgo(50, 2), maritalStatus: 'Married' });
  const young = await addPerson(t, c.churchId, { gender: 'Male', birthDate: bornAgo(25) });
  const woman = await addPerson(t, c.churchId, { gender: 'Female', birthDate: bornAgo(15), membershipStatus: 'Visitor' });
  await addToGroup(t, c.churchId, youth, woman.id);
  return { c, youth, man, young, woman, token: c.token(['People.View']) };
}

describe('POST /membership/query/members with the parser', () => {
  const t = useMembership();

  it('is guarded and validates the text', async () => {
    const c = await makeChurch(t);
    await expectGuarded(t.app, { method: 'POST', url: '/membership/query/members', body: { text: 'men' } }, c.churchId);
    const res = await call(t.app, 'POST', '/membership/query/members', { token: c.token(), body: { text: ' ' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('text');
  });

  it('turns text into conditions and runs them', async () => {
    const f = await people(t);
    const res = await ask(t, f.token, 'married men over 40');
    expect(res.statusCode).toBe(200);
    expect(res.json().conditions).toEqual([
      { field: 'gender', operator: 'equals', value: 'Male' },
      { field: 'age', operator: 'greaterThan', value: 40 },
      { field: 'maritalStatus', operator: 'equals', value: 'Married' },
    ]);
    expect(res.json().source).toBe('parser');
    expect(ids(res)).toEqual([f.man.id]);
  });

  it('looks up group names among the church’s groups', async () => {
    const f = await people(t);
    const res = await ask(t, f.token, 'women in the youth group');
    expect(res.json().conditions).toEqual([
      { field: 'gender', operator: 'equals', value: 'Female' },
      { field: 'groupId', operator: 'equals', value: f.youth },
    ]);
    expect(ids(res)).toEqual([f.woman.id]);
    const other = await makeChurch(t);
    const elsewhere = await ask(t, other.token(['People.View']), 'women in the youth group');
    expect(elsewhere.json()).toEqual({ conditions: [{ field: 'gender', operator: 'equals', value: 'Female' }, { field: 'groupName', operator: 'contains', value: 'youth' }], people: [], source: 'parser' });
  });

  it('finds no one for text it cannot read, and keeps non-staff to members', async () => {
    const f = await people(t);
    expect((await ask(t, f.token, 'tell me a joke')).json()).toEqual({ conditions: [], people: [], source: 'parser' });
    const memberView = await ask(t, f.c.token([], { membershipStatus: 'Member' }), 'everyone');
    expect(ids(memberView)).toEqual([f.c.personId, f.man.id, f.young.id].sort());
  });

  it('answers only callers who may call advancedSearch (People.View or Member)', async () => {
    const f = await people(t);
    for (const token of [f.c.token(), f.c.token(['People.Edit Self', 'Forms.Admin'], { membershipStatus: 'Visitor' })]) {
      const denied = await ask(t, token, 'everyone');
      expect(denied.statusCode).toBe(401);
      expect(denied.json()).toEqual({ errors: ['Missing permission: People.View or Member'] });
    }
    const everyoneMember = [f.c.personId, f.man.id, f.young.id].sort();
    expect(ids(await ask(t, f.c.token([], { membershipStatus: 'Member' }), 'everyone'))).toEqual(everyoneMember);
    expect(ids(await ask(t, f.c.token(['People.View Members']), 'everyone'))).toEqual(everyoneMember);
    const staff = await ask(t, f.token, 'everyone');
    expect(staff.statusCode).toBe(200);
    expect(ids(staff)).toEqual([...everyoneMember, f.woman.id].sort());
  });
});

describe('POST /membership/query/members with a chat model configured', () => {
  let reply: (body: Record<string, unknown>) => { status: number; json: unknown };
  const requests: Array<{ auth?: string; body: Record<string, unknown> }> = [];

  /** An OpenAI-compatible chat-completions endpoint on loopback, and the settings that point at it. */
  async function fakeChat() {
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw);
        requests.push({ auth: req.headers.authorization, body });
        const { status, json } = reply(body);
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    return { config: { OPENAI_API_URL: url, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'test-model' }, close: () => new Promise<void>((r) => server.close(() => r())) };
  }
  const t = useMembership({ fakes: fakeChat });

  const content = (conditions: unknown) => ({ status: 200, json: { choices: [{ message: { role: 'assistant', content: JSON.stringify({ conditions }) } }] } });

  it('uses the model’s conditions', async () => {
    const f = await people(t);
    requests.length = 0;
    reply = () => content([{ field: 'age', operator: 'lessThan', value: 30 }]);
    const res = await ask(t, f.token, 'the young ones');
    expect(res.json()).toMatchObject({ conditions: [{ field: 'age', operator: 'lessThan', value: 30 }], source: 'ai' });
    expect(ids(res)).toEqual([f.young.id, f.woman.id].sort());
    expect(requests[0]!.auth).toBe('Bearer sk-test');
    expect(requests[0]!.body).toMatchObject({ model: 'test-model', messages: [expect.objectContaining({ role: 'system' }), { role: 'user', content: 'the young ones' }] });
  });

  it('does not ask the model for callers without People.View or Member', async () => {
    const f = await people(t);
    requests.length = 0;
    reply = () => content([{ field: 'age', operator: 'lessThan', value: 30 }]);
    expect((await ask(t, f.c.token(), 'the young ones')).statusCode).toBe(401);
    expect(requests).toEqual([]);
  });

  it.each([
    ['an error status', () => ({ status: 500, json: { error: 'down' } })],
    ['invalid conditions', () => content([{ field: 'shoeSize', operator: 'equals', value: 9 }])],
    ['a bad value', () => content([{ field: 'age', operator: 'greaterThan', value: 'old' }])],
    ['no conditions', () => content([])],
    ['text that is not JSON', () => ({ status: 200, json: { choices: [{ message: { content: 'men over 40' } }] } })],
  ])('falls back to the parser on %s', async (_what, failing) => {
    const f = await people(t);
    reply = failing;
    const res = await ask(t, f.token, 'men over 40');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ source: 'parser', conditions: [{ field: 'gender', operator: 'equals', value: 'Male' }, { field: 'age', operator: 'greaterThan', value: 40 }] });
    expect(ids(res)).toEqual([f.man.id]);
  });
});
