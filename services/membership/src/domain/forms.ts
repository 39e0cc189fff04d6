import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { hasPermission, type Claims } from '@church/auth';
import { badRequest, notFound, saveRows, type Db, type Tx, type ChangeInput } from '@church/common';
import { answers, forms, memberPermissions, questions } from '../db/schema';
import {
  findPerson,
  findQuestion,
  findSubmission,
  insertMemberPermission,
  insertQuestions,
  listForms,
  listPermissions,
  listQuestions,
  maxSort,
  permissionsOf,
  lockFormOrder,
  setQuestionSorts,
  softDeleteQuestion,
  type AnswerRecord,
  type AnswerRow,
  type FormRow,
  type MemberPermissionRow,
  type PermissionWithNames,
  type QuestionRow,
  type SubmissionRecord,
} from '../repos/forms';
import { requireFormAccess } from './form-access';
import { report as reportTo, type Reporter } from './report';

type Row = Record<string, unknown>;

/**
 * What `GET /forms` (and `/forms/archived`) shows: Forms.Admin sees every form; anyone else the forms
 * they hold a member permission on, plus, with Forms.Edit, the "non-member forms": forms whose
 * contentType is not `form` (fields attached to person or group records), which member permissions do
 * not govern.
 */
export function formsFor(db: Db, auth: Claims, archived: boolean): Promise<FormRow[]> {
  if (hasPermission(auth, 'Forms.Admin')) return listForms(db, auth.churchId, { archived });
  return listForms(db, auth.churchId, { archived, memberOf: auth.personId ?? undefined, nonMember: hasPermission(auth, 'Forms.Edit') });
}

/**
 * Batch save of forms. Updating needs Form access (edit level); a new standalone form (contentType
 * `form`) gives its creator an `admin` member permission, so an editor can reach the form they made.
 */
export function saveForms(db: Db | Tx, auth: Claims, items: Row[], report?: Reporter): Promise<FormRow[]> {
  return db.transaction(async (tx) => {
    const out: FormRow[] = [];
    const changes: ChangeInput[] = [];
    for (const item of items) {
      const before = item.id ? await requireFormAccess(tx, auth, item.id as string, 'edit') : undefined;
      if (!item.id && !item.name) throw badRequest('name', 'name is required');
      const [row] = (await saveRows(tx, forms, auth.churchId, [item])) as FormRow[];
      if (!item.id && row!.contentType === 'form' && auth.personId) {
        await insertMemberPermission(tx, {
          id: randomUUID(),
          churchId: auth.churchId,
          memberId: auth.personId,
          contentType: 'form',
          contentId: row!.id,
          action: 'admin',
        });
      }
      out.push(row!);
      changes.push({ churchId: auth.churchId, entityType: 'form', entityId: row!.id, action: before ? 'updated' : 'created', before: before as Record<string, unknown> | undefined, after: row as Record<string, unknown> });
    }
    await reportTo(report, tx, changes);
    return out;
  });
}

/**
 * `forms/duplicate/:id` (B1Admin's forms list): a copy of a form the caller can read, named "<name> (Copy)", not
 * archived, with copies of its live questions (their order and sub-question links kept). Like a new form, the
 * copy gives its creator an `admin` member permission when it is a standalone form. Submissions are not copied.
 */
export function duplicateForm(db: Db, auth: Claims, formId: string): Promise<FormRow> {
  return db.transaction(async (tx) => {
    const source = await requireFormAccess(tx, auth, formId, 'view');
    const { id: _id, churchId: _church, createdAt: _created, updatedAt: _updated, removed: _removed, ...fields } = source;
    const [copy] = (await saveForms(tx, auth, [{ ...fields, name: `${source.name} (Copy)`, archived: false }])) as [FormRow];
    const originals = await listQuestions(tx, auth.churchId, source.id);
    const newIds = new Map(originals.map((q) => [q.id, randomUUID()]));
    await insertQuestions(
      tx,
      originals.map(({ id, createdAt: _c, updatedAt: _u, ...q }) => ({
        ...q,
        id: newIds.get(id)!,
        formId: copy.id,
        parentId: q.parentId ? (newIds.get(q.parentId) ?? null) : null,
      })),
    );
    return copy;
  });
}

/** Batch save of questions; a new question goes last in its form (sort = highest + 1). */
export function saveQuestions(db: Db, auth: Claims, items: Array<Row & { id?: string; formId: string }>, report?: Reporter): Promise<QuestionRow[]> {
  return db.transaction(async (tx) => {
    const out: QuestionRow[] = [];
    for (const item of items) {
      await requireFormAccess(tx, auth, item.formId, 'edit');
      const values: Row = { ...item };
      if (item.id) {
        const existing = await findQuestion(tx, auth.churchId, item.id);
        if (!existing) throw notFound('Question');
        if (existing.formId !== item.formId) throw badRequest('formId', 'a question cannot move to another form');
      } else {
        values.sort = (await maxSort(tx, auth.churchId, item.formId)) + 1;
      }
      const [row] = (await saveRows(tx, questions, auth.churchId, [values])) as QuestionRow[];
      out.push(row!);
    }
    await reportTo(report, tx, out.map((q, i) => ({ churchId: auth.churchId, entityType: 'question', entityId: q.id, action: items[i]!.id ? 'saved' : 'created', after: { formId: q.formId, title: q.title } })));
    return out;
  });
}

/** Swaps a question with its neighbour above or below and renumbers the form 1..n; answers the new order. */
export function moveQuestion(db: Db, auth: Claims, id: string, direction: 'up' | 'down'): Promise<QuestionRow[]> {
  return db.transaction(async (tx) => {
    const question = await findQuestion(tx, auth.churchId, id);
    if (!question) throw notFound('Question');
    await requireFormAccess(tx, auth, question.formId, 'edit');
    await lockFormOrder(tx, auth.churchId, question.formId);
    const list = await listQuestions(tx, auth.churchId, question.formId);
    const i = list.findIndex((q) => q.id === id);
    const j = direction === 'up' ? i - 1 : i + 1;
    if (j >= 0 && j < list.length) [list[i], list[j]] = [list[j]!, list[i]!];
    await setQuestionSorts(tx, auth.churchId, list);
    return list.map((q, n) => ({ ...q, sort: n + 1 }));
  });
}

export async function deleteQuestion(db: Db, auth: Claims, id: string, formId?: string, report?: Reporter): Promise<void> {
  await db.transaction(async (tx) => {
    const question = await findQuestion(tx, auth.churchId, id);
    if (!question || (formId && question.formId !== formId)) throw notFound('Question');
    await requireFormAccess(tx, auth, question.formId, 'edit');
    await softDeleteQuestion(tx, auth.churchId, id);
    await reportTo(report, tx, [{ churchId: auth.churchId, entityType: 'question', entityId: id, action: 'destroyed', before: { formId: question.formId, title: question.title } }]);
  });
}

/**
 * Batch save of member permissions: the caller needs Form access (edit level) on each form, the member
 * must be a person of the church, and granting a member a second row on the same form updates the first.
 */
export function saveMemberPermissions(db: Db, auth: Claims, items: Array<Row & { id?: string; memberId: string; contentId: string }>, report?: Reporter): Promise<PermissionWithNames[]> {
  return db.transaction(async (tx) => {
    const out: MemberPermissionRow[] = [];
    for (const item of items) {
      await requireFormAccess(tx, auth, item.contentId, 'edit');
      if (!(await findPerson(tx, auth.churchId, item.memberId))) throw notFound('Person');
      const values: Row = { ...item };
      if (item.id) {
        const [existing] = await listPermissions(tx, auth.churchId, { id: item.id });
        if (!existing || existing.permission.contentId !== item.contentId) throw notFound('Member permission');
      } else {
        const [existing] = await permissionsOf(tx, auth.churchId, item.memberId, item.contentId);
        if (existing) values.id = existing.id;
      }
      const [row] = (await saveRows(tx, memberPermissions, auth.churchId, [values])) as MemberPermissionRow[];
      out.push(row!);
    }
    await reportTo(report, tx, out.map((m) => ({ churchId: auth.churchId, entityType: 'memberPermission', entityId: m.id, action: 'saved', after: { memberId: m.memberId, contentId: m.contentId, action: m.action, emailNotification: m.emailNotification } })));
    // Answered as the lists are, with `personName` and `formName` (B1Admin's form members table shows the name
    // of the row the save answers), in input order.
    const named = new Map((await listPermissions(tx, auth.churchId, { ids: out.map((m) => m.id) })).map((r) => [r.permission.id, r]));
    return out.map((m) => named.get(m.id) ?? { permission: m, personName: null, formName: null });
  });
}

/** Batch save of answers to existing submissions; each question must belong to the submission's form. */
export function saveAnswers(db: Db, churchId: string, items: Array<Row & { formSubmissionId: string; questionId: string }>): Promise<AnswerRow[]> {
  return db.transaction(async (tx) => {
    const out: AnswerRow[] = [];
    for (const item of items) {
      const submission = await findSubmission(tx, churchId, item.formSubmissionId);
      if (!submission) throw notFound('Form submission');
      const question = await findQuestion(tx, churchId, item.questionId);
      if (!question || question.formId !== submission.formId) throw badRequest('questionId', 'the question is not part of the submitted form');
      const [row] = (await saveRows(tx, answers, churchId, [item])) as AnswerRow[];
      out.push(row!);
    }
    return out;
  });
}

/** A form's submissions as `formsubmissions/formId/:formId` answers them: each with the form, its questions and its own answers. */
export type SubmissionWithAnswers = SubmissionRecord & { form: FormRow; questions: QuestionRow[]; answers: AnswerRecord[] };

export function submissionsWithAnswers(form: FormRow, questions: QuestionRow[], submissions: SubmissionRecord[], answers: AnswerRecord[]): SubmissionWithAnswers[] {
  const bySubmission = new Map<string, AnswerRecord[]>();
  for (const a of answers) {
    const list = bySubmission.get(a.formSubmissionId);
    if (list) list.push(a);
    else bySubmission.set(a.formSubmissionId, [a]);
  }
  return submissions.map((s) => ({ ...s, form, questions, answers: bySubmission.get(s.id) ?? [] }));
}

/**
 * Whether two such answers hold the same values (dates by time), so that a kept body may be sent again: the form
 * and questions every submission shares are compared once, then each submission and its answers.
 */
export function sameSubmissions(a: SubmissionWithAnswers[], b: SubmissionWithAnswers[]): boolean {
  if (a.length !== b.length) return false;
  if (a.length && !(isDeepStrictEqual(a[0]!.form, b[0]!.form) && isDeepStrictEqual(a[0]!.questions, b[0]!.questions))) return false;
  return a.every((x, i) => {
    const y = b[i]!;
    const { form: _f, questions: _q, ...own } = x;
    const { form: _g, questions: _r, ...other } = y;
    return isDeepStrictEqual(own, other);
  });
}
