import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, getTableColumns, ilike, inArray, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '@church/common';
import { answers, formSubmissions, forms, groupMembers, groups, people, peopleSearchText, questions } from '../db/schema';
import { MEMBER_LEVEL_STATUSES, likeEscape } from '../lib/people';
import { batchedReads, dataVersions, isUuid, prepared, preparedReader, rowReader, type RowOf } from '@church/common';

/** A row of the people table as drizzle reads it. */
export type PersonRow = typeof people.$inferSelect;
/** A live person as reads select it: every column but `removed`. */
export type PersonRecord = Omit<PersonRow, 'removed'>;
/** Column values a save may set. */
export type PersonValues = Partial<typeof people.$inferInsert>;

export interface Scope {
  /** Member-level viewers see only members and staff who have not opted out */
  membersOnly?: boolean;
}

/** Conditions every people query starts with: the church, not removed, and the viewer's scope. */
export function peopleScope(churchId: string | SQLWrapper, scope: Scope = {}, ...extra: Array<SQL | undefined>): SQL {
  const conditions: Array<SQL | undefined> = [eq(people.churchId, churchId), eq(people.removed, false), ...extra];
  if (scope.membersOnly) conditions.push(inArray(people.membershipStatus, MEMBER_LEVEL_STATUSES), eq(people.optedOut, false));
  return and(...conditions)!;
}

const byName = [asc(people.lastName), asc(people.firstName), asc(people.id)];

// Reads of live people select what a person record returns (every column but `removed`).
const { removed: _removed, ...recordColumns } = getTableColumns(people);
const readRecords = rowReader(recordColumns);
const idColumns = { id: people.id };
const readIds = rowReader(idColumns);
const selectRecords = (db: DbOrTx) => db.select(recordColumns).from(people);

// The hottest reads, built once (see preparedReader).
const church = sql.placeholder('churchId');
const wholeChurch = [false, true].map((membersOnly) =>
  preparedReader(recordColumns, (qb) => qb.select(recordColumns).from(people).where(peopleScope(church, { membersOnly })).orderBy(...byName)),
);
const oneById = preparedReader(recordColumns, (qb) =>
  qb.select(recordColumns).from(people).where(peopleScope(church, {}, eq(people.id, sql.placeholder('id')))).limit(1),
);

/** People matching `where` (already church-scoped through `peopleScope`), sorted by name. */
/** A condition over the church's people, built by this file's `…Where` functions (routes pass it through, never build it). */
export type PeopleFilter = SQL;

export function peopleWhere(db: DbOrTx, where: SQL, limit?: number): Promise<PersonRecord[]> {
  const query = selectRecords(db).where(where).orderBy(...byName);
  return readRecords(db, limit ? query.limit(limit) : query);
}

/** The ids `peopleWhere` would answer, in the same order. */
export async function peopleIdsWhere(db: DbOrTx, where: SQL): Promise<string[]> {
  return (await readIds(db, db.select(idColumns).from(people).where(where).orderBy(...byName))).map((r) => r.id);
}

export function listPeople(db: DbOrTx, churchId: string, scope: Scope): Promise<PersonRecord[]> {
  return wholeChurch[scope.membersOnly ? 1 : 0]!(db, { churchId });
}

export function peopleByIds(db: DbOrTx, churchId: string, ids: string[], scope: Scope = {}): Promise<PersonRecord[]> {
  if (!ids.length) return Promise.resolve([]);
  return peopleWhere(db, peopleScope(churchId, scope, inArray(people.id, ids)));
}

export async function personById(db: DbOrTx, churchId: string, id: string): Promise<PersonRecord | undefined> {
  const [row] = await oneById(db, { churchId, id });
  return row;
}

export function recentPeople(db: DbOrTx, churchId: string, scope: Scope, limit = 25): Promise<PersonRecord[]> {
  return readRecords(db, selectRecords(db).where(peopleScope(churchId, scope)).orderBy(desc(people.createdAt), desc(people.id)).limit(limit));
}

/** Prepared searches by what they return, which inputs are given and the viewer's scope. */
const searches = new Map<string, (db: DbOrTx, values: Record<string, unknown>) => Promise<unknown[]>>();

type SearchInput = { term?: string; email?: string };

/** The search's conditions, with placeholders for the pattern and the email. */
function searchWhere(opts: SearchInput, scope: Scope): SQL {
  const conditions: SQL[] = [];
  if (opts.term) {
    const pattern = sql.placeholder('pattern');
    // "John Smith" should find John Smith: the first-last concatenation is searched too.
    const full = sql`(coalesce(${people.firstName}, '') || ' ' || coalesce(${people.lastName}, '')) ilike ${pattern}`;
    conditions.push(
      // Served by people_church_search_idx; the fields themselves are then checked one by one, so a match
      // across two fields of the joined text ("Smith john" over last and nick name) does not count.
      sql`${peopleSearchText(people)} ilike ${pattern}`,
      or(ilike(people.displayName, pattern), ilike(people.firstName, pattern), ilike(people.lastName, pattern), ilike(people.nickName, pattern), ilike(people.email, pattern), full)!,
    );
  }
  if (opts.email) conditions.push(sql`lower(${people.email}) = ${sql.placeholder('email')}`);
  return peopleScope(church, { membersOnly: scope.membersOnly }, ...conditions);
}

function runSearch<T extends typeof recordColumns | typeof idColumns>(columns: T, db: DbOrTx, churchId: string, opts: SearchInput, scope: Scope) {
  const key = `${Object.keys(columns).length},${Boolean(opts.term)},${Boolean(opts.email)},${Boolean(scope.membersOnly)}`;
  let read = searches.get(key);
  if (!read) {
    const where = searchWhere(opts, scope);
    // (the builder is typed for one column set; the reader decodes by `columns`)
    read = preparedReader(columns, (qb) => qb.select(columns as typeof recordColumns).from(people).where(where).orderBy(...byName));
    searches.set(key, read);
  }
  return read(db, { churchId, pattern: opts.term ? `%${likeEscape(opts.term)}%` : undefined, email: opts.email?.toLowerCase() }) as Promise<Array<RowOf<T>>>;
}

/** Name search (any of display, first, last, nick name, or the email) and/or exact email, case-insensitive. */
export function searchPeople(db: DbOrTx, churchId: string, opts: SearchInput, scope: Scope): Promise<PersonRecord[]> {
  return runSearch(recordColumns, db, churchId, opts, scope);
}

/** The ids `searchPeople` would answer, in the same order. */
export async function searchPeopleIds(db: DbOrTx, churchId: string, opts: SearchInput, scope: Scope): Promise<string[]> {
  return (await runSearch(idColumns, db, churchId, opts, scope)).map((r) => r.id);
}

/** The digits of a phone column, so `(555) 123-4567` matches `5551234567`. */
export const phoneDigits = (column: AnyPgColumn) => sql`regexp_replace(coalesce(${column}, ''), '[^0-9]', '', 'g')`;

/** People with any phone number containing these digits. */
export function phoneWhere(churchId: string, digits: string, scope: Scope): SQL {
  const pattern = `%${digits}%`;
  const match = or(...[people.homePhone, people.mobilePhone, people.workPhone].map((c) => sql`${phoneDigits(c)} like ${pattern}`));
  return peopleScope(churchId, scope, match);
}

/** Current members of one of the church's groups (a removed group has none). */
export function inGroupWhere(churchId: string, groupId: string, scope: Scope): SQL {
  return peopleScope(churchId, scope, memberOfGroups([groupId]));
}

/** `people.id` is in one of these groups of the same church (used by searches, advanced search and lists; the ids are one array parameter). */
export function memberOfGroups(groupIds: string[]): SQL {
  return sql`exists (select 1 from ${groupMembers} inner join ${groups} on ${groups.id} = ${groupMembers.groupId} and ${groups.churchId} = ${groupMembers.churchId}
    where ${groupMembers.churchId} = ${people.churchId} and ${groupMembers.personId} = ${people.id}
    and ${groupMembers.groupId} = any(${sql.param(groupIds)}::uuid[]) and ${groups.removed} = false)`;
}

/** `people.id` is in a group whose name matches the LIKE pattern (case-insensitive). */
export function memberOfGroupNamed(pattern: string): SQL {
  return sql`exists (select 1 from ${groupMembers} inner join ${groups} on ${groups.id} = ${groupMembers.groupId} and ${groups.churchId} = ${groupMembers.churchId}
    where ${groupMembers.churchId} = ${people.churchId} and ${groupMembers.personId} = ${people.id}
    and ${groups.name} ilike ${pattern} and ${groups.removed} = false)`;
}

export function peopleInHousehold(db: DbOrTx, churchId: string, householdId: string): Promise<PersonRecord[]> {
  return readRecords(db, selectRecords(db).where(peopleScope(churchId, {}, eq(people.householdId, householdId))).orderBy(asc(people.createdAt), asc(people.id)));
}

/** The oldest person of the church with this email (case-insensitive). */
export async function personByEmail(db: DbOrTx, churchId: string, email: string): Promise<PersonRow | undefined> {
  const [row] = await db
    .select()
    .from(people)
    .where(peopleScope(churchId, {}, sql`lower(${people.email}) = ${email.toLowerCase()}`))
    .orderBy(asc(people.createdAt), asc(people.id))
    .limit(1);
  return row;
}

export async function personOfUser(db: DbOrTx, churchId: string, userId: string): Promise<PersonRow | undefined> {
  const [row] = await db.select().from(people).where(peopleScope(churchId, {}, eq(people.userId, userId))).orderBy(asc(people.createdAt)).limit(1);
  return row;
}

export async function insertPerson(db: DbOrTx, churchId: string, values: PersonValues & { id?: string }): Promise<PersonRow> {
  const [row] = await db
    .insert(people)
    .values({ ...values, id: values.id ?? randomUUID(), churchId })
    .returning();
  return row!;
}

/** Rows per multi-row insert: well under PostgreSQL's 65,535 parameters for the widest table. */
export const INSERT_CHUNK = 500;

/** New people of the church, one statement per chunk; the rows as stored. */
export async function insertPeople(db: DbOrTx, churchId: string, rows: Array<PersonValues & { id: string }>): Promise<PersonRow[]> {
  const out: PersonRow[] = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    out.push(...(await db.insert(people).values(rows.slice(i, i + INSERT_CHUNK).map((v) => ({ ...v, churchId }))).returning()));
  }
  return out;
}

/** Updates one person of the church; undefined when the church has no such (non-removed) person. */
export async function updatePerson(db: DbOrTx, churchId: string, id: string, values: PersonValues): Promise<PersonRow | undefined> {
  const [row] = await db
    .update(people)
    .set({ ...values, updatedAt: new Date() })
    .where(peopleScope(churchId, {}, eq(people.id, id)))
    .returning();
  return row;
}

/** Emails of the church's people with these ids (for other modules). */
export function emailsOf(db: DbOrTx, churchId: string, ids: string[]): Promise<Array<{ id: string; email: string | null }>> {
  if (!ids.length) return Promise.resolve([]);
  return db.select({ id: people.id, email: people.email }).from(people).where(peopleScope(churchId, {}, inArray(people.id, ids)));
}

/**
 * Names of the church's people with these ids, removed people included: attendance and giving history
 * still name them (that is why people are soft-deleted).
 */
export function namesOf(db: DbOrTx, churchId: string, ids: string[]) {
  if (!ids.length) return Promise.resolve([]);
  return db
    .select({
      id: people.id,
      displayName: people.displayName,
      firstName: people.firstName,
      lastName: people.lastName,
      nickName: people.nickName,
      photo: people.photo,
      householdId: people.householdId,
      householdRole: people.householdRole,
    })
    .from(people)
    .where(and(eq(people.churchId, churchId), inArray(people.id, ids)))
    .orderBy(...byName);
}

const submissionColumns = {
  id: formSubmissions.id,
  formId: formSubmissions.formId,
  formName: forms.name,
  submissionDate: formSubmissions.submissionDate,
  revisionDate: formSubmissions.revisionDate,
  submittedBy: formSubmissions.submittedBy,
};
// Asked on every people/:id read, usually to find none.
const submissionsAbout = preparedReader(submissionColumns, (qb) =>
  qb
    .select(submissionColumns)
    .from(formSubmissions)
    .leftJoin(forms, and(eq(forms.id, formSubmissions.formId), eq(forms.churchId, church)))
    .where(and(eq(formSubmissions.churchId, church), eq(formSubmissions.contentType, 'person'), eq(formSubmissions.contentId, sql.placeholder('personId'))))
    .orderBy(desc(formSubmissions.submissionDate)),
);

// people/:id, read in batches: concurrent reads of any churches go out as one statement (see `batchedReads`).
// Ids are unique across churches; each answer is still checked against the church that asked for it.
const somePeople = preparedReader(recordColumns, (qb) =>
  qb
    .select(recordColumns)
    .from(people)
    .where(and(sql`${people.id} = any(${sql.placeholder('ids')}::uuid[])`, sql`${people.churchId} = any(${sql.placeholder('churchIds')}::uuid[])`, eq(people.removed, false))),
);
type PersonKey = { churchId: string; id: string };
const personKey = (k: PersonKey) => `${k.churchId}/${k.id}`.toLowerCase();

/** A live person of the church (people/:id), read in batches. Not for use in a transaction. */
export const livePerson = batchedReads(
  async (db: DbOrTx, keys: PersonKey[]) => {
    const asked = keys.filter((k) => isUuid(k.churchId) && isUuid(k.id));
    const rows = asked.length ? await somePeople(db, { ids: asked.map((k) => k.id), churchIds: [...new Set(asked.map((k) => k.churchId))] }) : [];
    const byKey = new Map(rows.map((r) => [personKey(r), r]));
    return keys.map((k) => byKey.get(personKey(k)));
  },
  { id: personKey },
);

// Per person asked: the church's data version ("0" before its first change, as `dataVersion`) and whether
// anything was submitted about the person (form submissions are not under the version).
const readStates = prepared<{ c: string; i: string; v: string; f: boolean }>(sql`
  select k.church_id::text as c, k.id::text as i, coalesce(${dataVersions.version}, 0)::text as v,
    exists (select 1 from ${formSubmissions} where ${formSubmissions.churchId} = k.church_id and ${formSubmissions.contentType} = 'person' and ${formSubmissions.contentId} = k.id) as f
  from unnest(${sql.placeholder('churchIds')}::uuid[], ${sql.placeholder('ids')}::uuid[]) as k(church_id, id)
  left join ${dataVersions} on ${dataVersions.churchId} = k.church_id`);

/**
 * What people/:id needs to know before it can answer from a kept record: the church's data version and whether
 * the person has form submissions. One small statement for all the reads in a batch; undefined for a bad id.
 */
export const personReadState = batchedReads(
  async (db: DbOrTx, keys: PersonKey[]) => {
    const asked = keys.filter((k) => isUuid(k.churchId) && isUuid(k.id));
    const rows = asked.length ? await readStates(db, { churchIds: asked.map((k) => k.churchId), ids: asked.map((k) => k.id) }) : [];
    const byKey = new Map(rows.map((r) => [personKey({ churchId: r.c, id: r.i }), { version: r.v, hasForms: r.f }]));
    return keys.map((k) => byKey.get(personKey(k)));
  },
  { id: personKey },
);

/** Form submissions about a person (content type `person`), newest first, with form names and answers. */
export async function formSubmissionsAbout(db: DbOrTx, churchId: string, personId: string) {
  const subs = await submissionsAbout(db, { churchId, personId });
  if (!subs.length) return [];
  const rows = await db
    .select({ id: answers.id, formSubmissionId: answers.formSubmissionId, questionId: answers.questionId, questionTitle: questions.title, value: answers.value })
    .from(answers)
    .leftJoin(questions, and(eq(questions.id, answers.questionId), eq(questions.churchId, churchId)))
    .where(and(eq(answers.churchId, churchId), inArray(answers.formSubmissionId, subs.map((s) => s.id))))
    .orderBy(asc(questions.sort));
  return subs.map((s) => ({ ...s, answers: rows.filter((a) => a.formSubmissionId === s.id).map(({ formSubmissionId: _f, ...a }) => a) }));
}

/** Ids of the church's groups in a category (attendance filters by group, not by category). */
export async function groupIdsInCategory(db: DbOrTx, churchId: string, categoryName: string): Promise<string[]> {
  const rows = await db
    .select({ id: groups.id })
    .from(groups)
    .where(and(eq(groups.churchId, churchId), eq(groups.categoryName, categoryName), eq(groups.removed, false)));
  return rows.map((r) => r.id);
}

/** Ids among `ids` of the church's live people. */
export async function livePeopleIds(db: DbOrTx, churchId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db.select({ id: people.id }).from(people).where(peopleScope(churchId, {}, inArray(people.id, ids)));
  return new Set(rows.map((r) => r.id));
}

/** Sets the same values on the church's live people among `ids` in one statement; the ids updated. */
export async function updatePeople(db: DbOrTx, churchId: string, ids: string[], values: PersonValues): Promise<string[]> {
  const rows = await db
    .update(people)
    .set({ ...values, updatedAt: new Date() })
    .where(peopleScope(churchId, {}, inArray(people.id, ids)))
    .returning({ id: people.id });
  return rows.map((r) => r.id);
}

/** The first `limit` people of the church by name, in the viewer's scope (a list's first page). */
export function firstPeople(db: DbOrTx, churchId: string, scope: Scope, limit: number): Promise<PersonRecord[]> {
  return peopleWhere(db, peopleScope(churchId, scope), limit);
}

/** How the church's live people are spread over gender, status, marital status, campus and age group (by gender). */
export async function demographicCounts(db: DbOrTx, churchId: string) {
  const live = peopleScope(churchId, {});
  const bucket = (column: AnyPgColumn) => sql<string>`coalesce(nullif(trim(${column}), ''), 'Unassigned')`;
  const countBy = (column: AnyPgColumn) =>
    db
      .select({ name: bucket(column), count: sql<number>`count(*)::int` })
      .from(people)
      .where(live)
      .groupBy(sql`1`)
      .orderBy(sql`2 desc`, sql`1`);
  const [gender, membershipStatus, maritalStatus, campus, ages] = await Promise.all([
    countBy(people.gender),
    countBy(people.membershipStatus),
    countBy(people.maritalStatus),
    db
      .select({ id: people.campusId, count: sql<number>`count(*)::int` })
      .from(people)
      .where(live)
      .groupBy(people.campusId)
      .orderBy(sql`2 desc`),
    db
      .select({ gender: bucket(people.gender), age: sql<number>`date_part('year', age(current_date, ${people.birthDate}))::int`, count: sql<number>`count(*)::int` })
      .from(people)
      .where(and(live, sql`${people.birthDate} is not null`))
      .groupBy(sql`1`, sql`2`),
  ]);
  return { gender, membershipStatus, maritalStatus, campus, ages };
}
