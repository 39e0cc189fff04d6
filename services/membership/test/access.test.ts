import routesJson from '../../../../shared/spec/routes.json';
import { randomUUID } from 'node:crypto';
import { expectForeignReferencesRefused, expectRoutesGuarded } from '@church/common/testing';
import { makeChurch, useMembership } from './setup';
import { addForm, addGroup, addPerson } from './routes/fixtures';
import { formSubmissions, personFields, questions, roles, sites } from '../src/db/schema';
import type { TestApp } from '@church/common/testing';

// The shared route-walking access suite over every membership route.
const t = useMembership();

const spec = (routesJson as Array<{ module: string; method: string; path: string; auth: string }>).filter((r) => r.module === 'membership');

/**
 * "Form access" routes let any signed-in caller reach the handler, which finds the form (or question, member
 * permission) in the caller's church first (404) and then checks access (401): the form often arrives in the
 * body or must be looked up (README, Forms). A token without permissions therefore meets the 404 or 400 first.
 */
const FORM_ACCESS = [
  'GET /membership/forms/:id',
  'DELETE /membership/forms/:id',
  'GET /membership/formsubmissions/formId/:formId',
  'GET /membership/questions',
  'GET /membership/questions/:id',
  'POST /membership/questions',
  'DELETE /membership/questions/:id',
  'GET /membership/memberpermissions/:id',
  'GET /membership/memberpermissions/form/:id',
  'GET /membership/memberpermissions/form/:id/my',
  'POST /membership/memberpermissions',
  'DELETE /membership/memberpermissions/member/:id',
  'DELETE /membership/memberpermissions/:id',
];

describe('the membership route table', () => {
  it('has every spec route at its path and method with the spec’s kind of access', () => {
    expect(spec).toHaveLength(141);
    const registered = new Map(t.app.routeList.map((r) => [`${r.method} ${r.url.toLowerCase()}`, r.access]));
    for (const r of spec) {
      const access = registered.get(`${r.method} ${r.path.toLowerCase()}`);
      expect([`${r.method} ${r.path}`, access !== undefined]).toEqual([`${r.method} ${r.path}`, true]);
      const kind = access === 'public' ? 'Public' : access === 'internal' ? 'Internal' : 'JWT';
      expect([`${r.method} ${r.path}`, kind]).toEqual([`${r.method} ${r.path}`, r.auth]);
    }
  });

  it('refuses callers without a valid token or the permission, and never fails with a 500 for another church', async () => {
    const report = await expectRoutesGuarded(t.app, { openToAnyUser: FORM_ACCESS });
    // The spec's 141 routes, the apps' calls added for issue 30 (users, groups, people, person fields, roles,
    // settings, forms, audit log) and for issue 34 (API keys, connected apps and relay sessions, webhooks, GDPR,
    // join requests, pickup, associated groups, sites, server health, lists, batches), what a church listens for, and for
    // issue 44 the member directory list and the domains relink, for issue 45 `GET /people/advancedSearch`, and for
    // issue 41 the reference check other modules ask (`internal/owned`). Update with the route table.
    expect(report).toEqual({ guarded: 190, internal: 14, public: 30, total: 234 });
  });
});

/** Another church's records, one of each kind a membership body names (rows of this module's own tables). */
async function theirRecords(t: TestApp) {
  const other = await makeChurch(t);
  const { churchId } = other;
  const household = await addPerson(t, churchId);
  const groupId = await addGroup(t, churchId, 'Theirs');
  const formId = await addForm(t, churchId, { contentType: 'form' });
  const questionId = randomUUID();
  await t.app.db.insert(questions).values({ id: questionId, churchId, formId, title: 'Theirs' });
  const formSubmissionId = randomUUID();
  await t.app.db.insert(formSubmissions).values({ id: formSubmissionId, churchId, formId, contentType: 'form', contentId: formId });
  const roleId = randomUUID();
  await t.app.db.insert(roles).values({ id: roleId, churchId, name: 'Theirs' });
  const siteId = randomUUID();
  await t.app.db.insert(sites).values({ id: siteId, churchId, name: 'Theirs', subDomain: `s${siteId.slice(0, 8)}` });
  const fieldId = randomUUID();
  await t.app.db.insert(personFields).values({ id: fieldId, churchId, name: 'Theirs' });
  return { personId: household.id, householdId: household.householdId!, groupId, formId, questionId, formSubmissionId, roleId, siteId, fieldId };
}

describe('references in bodies', () => {
  it("keeps no other church's id: every write route refuses or drops the ids another church's records carry", async () => {
    const mine = await makeChurch(t);
    const theirs = await theirRecords(t);
    const report = await expectForeignReferencesRefused(t.app, {
      churchId: mine.churchId,
      token: mine.token('all'),
      foreign: {
        ...theirs,
        personIds: theirs.personId,
        memberId: theirs.personId,
        parentGroupId: theirs.groupId,
        parentId: theirs.questionId,
        // polymorphic (named by contentType): a form here; member permissions name a form, submissions a person,
        // group or form of the form's church (README, References)
        contentId: theirs.formId,
        // attendance's campus: a fresh id is another church's (the test app's owned check refuses the walk's ids)
        campusId: randomUUID(),
        // messaging's conversation (B1Admin's staff notes about a person): likewise
        conversationId: randomUUID(),
      },
    });
    expect(report.fields).toEqual([
      'campusId', 'contentId', 'conversationId', 'fieldId', 'formId', 'formSubmissionId', 'groupId', 'householdId', 'memberId',
      'parentGroupId', 'parentId', 'personId', 'personIds', 'questionId', 'roleId', 'siteId',
    ]);
    // refused by name: people (household, campus), questions (parent), pickups, associated groups (7 before issue 41:
    // the last two); the other routes answer on other grounds first (404 for another church's form, group, role,
    // person, or a body the walk cannot fill validly)
    expect(report.refused).toBeGreaterThanOrEqual(14);
  });
});
