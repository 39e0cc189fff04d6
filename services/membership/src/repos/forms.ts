import { and, asc, desc, eq, inArray, max, ne, or, sql, type SQL } from 'drizzle-orm';
import { findRow, type DbOrTx } from '@church/common';
import { answers, formSubmissions, forms, memberPermissions, people, questions } from '../db/schema';

export type FormRow = typeof forms.$inferSelect;
export type QuestionRow = typeof questions.$inferSelect;
export type SubmissionRow = typeof formSubmissions.$inferSelect;
export type AnswerRow = typeof answers.$inferSelect;
export type MemberPermissionRow = typeof memberPermissions.$inferSelect;

// ---- forms

export function findForm(db: DbOrTx, churchId: string, id: string): Promise<FormRow | undefined> {
  return findRow(db, forms, churchId, id);
}

/** A form by id in whichever church owns it: standalone forms are filled in by people of other churches. */
export async function findFormAnyChurch(db: DbOrTx, id: string): Promise<FormRow | undefined> {
  const [row] = await db.select().from(forms).where(and(eq(forms.id, id), eq(forms.removed, false))).limit(1);
  return row;
}

/**
 * Forms of the church by name. `memberOf` narrows to forms the person holds a member permission on,
 * `nonMember` to forms that member permissions do not govern (contentType other than `form`); together
 * they are OR-ed, which is what a Forms.Edit holder without Forms.Admin sees.
 */
export function listForms(db: DbOrTx, churchId: string, opts: { archived: boolean; memberOf?: string; nonMember?: boolean }): Promise<FormRow[]> {
  const scope: SQL[] = [];
  if (opts.memberOf) {
    scope.push(
      inArray(
        forms.id,
        db
          .select({ id: memberPermissions.contentId })
          .from(memberPermissions)
          .where(and(eq(memberPermissions.churchId, churchId), eq(memberPermissions.memberId, opts.memberOf))),
      ),
    );
  }
  if (opts.nonMember) scope.push(ne(forms.contentType, 'form'));
  const restricted = opts.memberOf !== undefined || opts.nonMember !== undefined;
  if (restricted && !scope.length) return Promise.resolve([]);
  return db
    .select()
    .from(forms)
    .where(and(eq(forms.churchId, churchId), eq(forms.archived, opts.archived), eq(forms.removed, false), restricted ? or(...scope) : undefined))
    .orderBy(asc(forms.name));
}

// ---- questions

export function listQuestions(db: DbOrTx, churchId: string, formId: string): Promise<QuestionRow[]> {
  return db
    .select()
    .from(questions)
    .where(and(eq(questions.churchId, churchId), eq(questions.formId, formId), eq(questions.removed, false)))
    .orderBy(asc(questions.sort), asc(questions.createdAt), asc(questions.id));
}

export function findQuestion(db: DbOrTx, churchId: string, id: string): Promise<QuestionRow | undefined> {
  return findRow(db, questions, churchId, id);
}

/** The highest sort of a form's questions (0 when it has none). */
export async function maxSort(db: DbOrTx, churchId: string, formId: string): Promise<number> {
  const [row] = await db
    .select({ sort: max(questions.sort) })
    .from(questions)
    .where(and(eq(questions.churchId, churchId), eq(questions.formId, formId), eq(questions.removed, false)));
  return row?.sort ?? 0;
}

/**
 * Takes the form's row lock for the transaction: changes to the order of one form's questions take turns (two moves
 * at once each read the order, then rewrote the rows in their own new order, and deadlocked).
 */
export async function lockFormOrder(tx: DbOrTx, churchId: string, formId: string): Promise<void> {
  await tx.select({ id: forms.id }).from(forms).where(and(eq(forms.churchId, churchId), eq(forms.id, formId))).for('update');
}

export async function setQuestionSorts(db: DbOrTx, churchId: string, ordered: QuestionRow[]): Promise<void> {
  for (const [i, q] of ordered.entries()) {
    if (q.sort !== i + 1) await db.update(questions).set({ sort: i + 1 }).where(and(eq(questions.churchId, churchId), eq(questions.id, q.id)));
  }
}

/** New questions, as given (a form's copy: `duplicateForm`). */
export async function insertQuestions(db: DbOrTx, rows: Array<typeof questions.$inferInsert>): Promise<void> {
  if (rows.length) await db.insert(questions).values(rows);
}

export async function softDeleteQuestion(db: DbOrTx, churchId: string, id: string): Promise<void> {
  await db.update(questions).set({ removed: true, updatedAt: new Date() }).where(and(eq(questions.churchId, churchId), eq(questions.id, id)));
}

// ---- submissions and answers

export async function insertSubmission(db: DbOrTx, values: typeof formSubmissions.$inferInsert): Promise<SubmissionRow> {
  const [row] = await db.insert(formSubmissions).values(values).returning();
  return row!;
}

/** A submission's answers, in one statement (none: nothing is written). */
export async function insertAnswers(db: DbOrTx, rows: Array<typeof answers.$inferInsert>): Promise<AnswerRow[]> {
  return rows.length ? db.insert(answers).values(rows).returning() : [];
}

/** The columns a submission answers with (its own timestamps are not among them). */
const submissionColumns = {
  id: formSubmissions.id,
  churchId: formSubmissions.churchId,
  formId: formSubmissions.formId,
  contentType: formSubmissions.contentType,
  contentId: formSubmissions.contentId,
  submittedBy: formSubmissions.submittedBy,
  submissionDate: formSubmissions.submissionDate,
  revisionDate: formSubmissions.revisionDate,
};
export type SubmissionRecord = Pick<SubmissionRow, keyof typeof submissionColumns>;

export function listSubmissions(db: DbOrTx, churchId: string, filter: { formId?: string; personId?: string }): Promise<SubmissionRecord[]> {
  const where: Array<SQL | undefined> = [eq(formSubmissions.churchId, churchId)];
  if (filter.formId) where.push(eq(formSubmissions.formId, filter.formId));
  if (filter.personId) where.push(and(eq(formSubmissions.contentType, 'person'), eq(formSubmissions.contentId, filter.personId)));
  return db
    .select(submissionColumns)
    .from(formSubmissions)
    .where(and(...where))
    .orderBy(desc(formSubmissions.submissionDate), asc(formSubmissions.id));
}

export function findSubmission(db: DbOrTx, churchId: string, id: string): Promise<SubmissionRow | undefined> {
  return findRow(db, formSubmissions, churchId, id);
}

/** Deletes a submission and its answers; false when the church has no such submission. */
export async function deleteSubmission(db: DbOrTx, churchId: string, id: string): Promise<boolean> {
  await db.delete(answers).where(and(eq(answers.churchId, churchId), eq(answers.formSubmissionId, id)));
  const rows = await db
    .delete(formSubmissions)
    .where(and(eq(formSubmissions.churchId, churchId), eq(formSubmissions.id, id)))
    .returning({ id: formSubmissions.id });
  return rows.length > 0;
}

/** The columns an answer answers with. */
const answerColumns = { id: answers.id, churchId: answers.churchId, formSubmissionId: answers.formSubmissionId, questionId: answers.questionId, value: answers.value };
export type AnswerRecord = Pick<AnswerRow, keyof typeof answerColumns>;

/** Answers of the submissions, in the order of their questions on the form (the ids travel as one array). */
export async function listAnswers(db: DbOrTx, churchId: string, submissionIds: string[]): Promise<AnswerRecord[]> {
  if (!submissionIds.length) return [];
  return db
    .select(answerColumns)
    .from(answers)
    .leftJoin(questions, and(eq(questions.churchId, churchId), eq(questions.id, answers.questionId)))
    .where(and(eq(answers.churchId, churchId), sql`${answers.formSubmissionId} = any(${sql.param(submissionIds)}::uuid[])`))
    .orderBy(asc(questions.sort), asc(answers.createdAt), asc(answers.id));
}

// ---- member permissions

const permissionWithNames = { permission: memberPermissions, personName: people.displayName, formName: forms.name };
export type PermissionWithNames = { permission: MemberPermissionRow; personName: string | null; formName: string | null };

/** Member permissions with the member's display name and the form's name. */
export function listPermissions(
  db: DbOrTx,
  churchId: string,
  filter: { id?: string; ids?: string[]; formId?: string; memberId?: string; formIds?: string[] },
): Promise<PermissionWithNames[]> {
  const where: Array<SQL | undefined> = [eq(memberPermissions.churchId, churchId)];
  if (filter.id) where.push(eq(memberPermissions.id, filter.id));
  if (filter.ids) where.push(filter.ids.length ? inArray(memberPermissions.id, filter.ids) : sql`false`);
  if (filter.formId) where.push(eq(memberPermissions.contentId, filter.formId));
  if (filter.memberId) where.push(eq(memberPermissions.memberId, filter.memberId));
  if (filter.formIds) where.push(filter.formIds.length ? inArray(memberPermissions.contentId, filter.formIds) : sql`false`);
  return db
    .select(permissionWithNames)
    .from(memberPermissions)
    .leftJoin(people, and(eq(people.churchId, churchId), eq(people.id, memberPermissions.memberId)))
    .leftJoin(forms, and(eq(forms.churchId, churchId), eq(forms.id, memberPermissions.contentId)))
    .where(and(...where))
    // a form's admins before its view-only members (B1Admin's form members list, whose last row is the latest viewer),
    // those notified first, then by name
    .orderBy(asc(memberPermissions.action), desc(memberPermissions.emailNotification), asc(people.lastName), asc(people.firstName), asc(memberPermissions.createdAt));
}

/** The caller's own permission rows on a form (the basis of "Form access"). */
export function permissionsOf(db: DbOrTx, churchId: string, memberId: string, formId: string): Promise<MemberPermissionRow[]> {
  return db
    .select()
    .from(memberPermissions)
    .where(and(eq(memberPermissions.churchId, churchId), eq(memberPermissions.memberId, memberId), eq(memberPermissions.contentId, formId)));
}

/** Ids of the forms on which the person holds any member permission. */
export async function formIdsOfMember(db: DbOrTx, churchId: string, memberId: string): Promise<string[]> {
  const rows = await db
    .select({ id: memberPermissions.contentId })
    .from(memberPermissions)
    .where(and(eq(memberPermissions.churchId, churchId), eq(memberPermissions.memberId, memberId)));
  return [...new Set(rows.map((r) => r.id))];
}

/** Who gets an email for each new submission of the form: the members' emails, de-duplicated. */
export async function notificationEmails(db: DbOrTx, churchId: string, formId: string): Promise<string[]> {
  const rows = await db
    .select({ email: people.email })
    .from(memberPermissions)
    .innerJoin(people, and(eq(people.churchId, churchId), eq(people.id, memberPermissions.memberId), eq(people.removed, false)))
    .where(and(eq(memberPermissions.churchId, churchId), eq(memberPermissions.contentId, formId), eq(memberPermissions.emailNotification, true)));
  return [...new Set(rows.map((r) => r.email?.trim().toLowerCase()).filter((e): e is string => !!e))];
}

export async function insertMemberPermission(db: DbOrTx, values: typeof memberPermissions.$inferInsert): Promise<void> {
  await db.insert(memberPermissions).values(values);
}

export async function deletePermission(db: DbOrTx, churchId: string, id: string): Promise<void> {
  await db.delete(memberPermissions).where(and(eq(memberPermissions.churchId, churchId), eq(memberPermissions.id, id)));
}

export async function deleteMemberPermissions(db: DbOrTx, churchId: string, memberId: string, formId: string): Promise<number> {
  const rows = await db
    .delete(memberPermissions)
    .where(and(eq(memberPermissions.churchId, churchId), eq(memberPermissions.memberId, memberId), eq(memberPermissions.contentId, formId)))
    .returning({ id: memberPermissions.id });
  return rows.length;
}

// ---- people, read for submissions (names, emails); auto-created guests come from createGuest (domain/people/save.ts)

export type PersonContact = { id: string; firstName: string | null; lastName: string | null; email: string | null };
const contact = { id: people.id, firstName: people.firstName, lastName: people.lastName, email: people.email };

/** The oldest live person of the church with this email (case-insensitive; served by people_church_email_idx). */
export async function findPersonByEmail(db: DbOrTx, churchId: string, email: string): Promise<PersonContact | undefined> {
  const [row] = await db
    .select(contact)
    .from(people)
    .where(and(eq(people.churchId, churchId), sql`lower(${people.email}) = ${email.toLowerCase()}`, eq(people.removed, false)))
    .orderBy(asc(people.createdAt))
    .limit(1);
  return row;
}

export function findPerson(db: DbOrTx, churchId: string, id: string): Promise<PersonContact | undefined> {
  return findRow(db, people, churchId, id);
}
