import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { hasPermission } from '@church/auth';
import { badRequest, emailOf, foreignReferences, notFound, reportChanges, unauthorized, validationFailed, type Actor, type EmailMessage, type InternalClient, type References, type Tx } from '@church/common';
import type { MembershipDeps } from '../deps';
import { forms, groups } from '../db/schema';
import {
  findFormAnyChurch,
  findPerson,
  findPersonByEmail,
  insertAnswers,
  insertSubmission,
  listQuestions,
  notificationEmails,
  type AnswerRow,
  type FormRow,
  type PersonContact,
  type SubmissionRow,
} from '../repos/forms';
import { followUpEmail, notificationEmail, type MergeFields } from './follow-up';
import { createGuest } from './people/save';
import type { Reporter } from './report';

export interface SubmissionInput {
  formId: string;
  contentType?: string;
  contentId?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  answers: Array<{ questionId: string; value?: string | null }>;
}

const EmailAddress = z.email();
/**
 * What `contentId` names by `contentType`, in the form's church: a form or a group of it (a `person` is looked up
 * with the permission to attach it, below). Other content types name records of other modules that no reference
 * check answers for; they are kept as sent (README, References).
 */
const CONTENT: ReadonlyMap<string, References> = new Map([
  ['form', { contentId: forms }],
  ['group', { contentId: groups }],
]);
/** Who may attach a submission to a person other than themselves: editors of forms or of people. */
const ATTACH_OTHERS = ['Forms.Admin', 'Forms.Edit', 'People.Edit'];

/**
 * Submits forms: each submission and its answers are written in one transaction, with their emails queued
 * (`membership.email`) in it.
 *
 * - The form may belong to another church when it is a standalone, unrestricted form (a public sign-up);
 *   a restricted form takes submissions only from callers of its own church (401 otherwise). The
 *   submission is stored in the form's church.
 * - Answers must name questions of the form; required questions need a non-empty answer.
 * - `autoCreatePerson`: the submitter's email (the answer to the first question of fieldType `Email`, else
 *   `email` in the body) finds the church's person with that email or creates a Guest, and the submission
 *   is linked to them (contentType `person`). Without an email the submission is kept unlinked. A new Guest
 *   is made by `createGuest`, as loadOrCreate and claim make them (own household), in this transaction.
 * - An explicit `contentType: 'person'` may name the caller's own person; anyone else's needs Forms.Admin,
 *   Forms.Edit or People.Edit in the form's church (401 otherwise, before the person is even looked up).
 * - Every member permission on the form with `emailNotification` gets a notice; when the form has
 *   `followUpSubject` and `followUpBody`, the submitter gets the merged follow-up (see follow-up.ts): at the
 *   email they gave, else their account's, never the attached person's (who may be someone else).
 */
export async function submitForms(
  deps: Pick<MembershipDeps, 'db' | 'module' | 'queue' | 'internal'>,
  actor: Actor,
  items: SubmissionInput[],
  param: (i: number, field: string) => string = (_i, field) => field,
): Promise<Array<SubmissionRow & { answers: AnswerRow[] }>> {
  const mails: EmailMessage[] = [];
  return deps.db.transaction(async (tx) => {
    const out: Array<SubmissionRow & { answers: AnswerRow[] }> = [];
    for (const [i, item] of items.entries()) {
      const at = { internal: deps.internal, param: (field: string) => param(i, field) };
      out.push(await submitOne(tx, actor, item, mails, { deps, actor }, at));
    }
    // Each submission is a change of its form's church (`form.submission.created`), with its answers.
    await reportChanges(
      deps,
      out.map((s) => ({ churchId: s.churchId, entityType: 'formSubmission', entityId: s.id, action: 'created', event: 'form.submission.created', after: { formId: s.formId, contentType: s.contentType, contentId: s.contentId }, data: s })),
      { tx, req: actor },
    );
    // The notices and follow-ups are queued in the submissions' transaction: sent exactly when they are saved.
    for (const mail of mails) await deps.queue.enqueue(emailOf('membership'), mail, { tx });
    return out;
  });
}

async function submitOne(
  tx: Tx,
  actor: Actor,
  item: SubmissionInput,
  mails: EmailMessage[],
  reporter: Reporter,
  at: { internal: InternalClient; param: (field: string) => string },
) {
  const form = await findFormAnyChurch(tx, item.formId);
  const sameChurch = form?.churchId === actor.churchId;
  // Only standalone forms are filled in across churches; other forms belong to their church's records.
  if (!form || (!sameChurch && form.contentType !== 'form')) throw notFound('Form');
  if (form.restricted && !sameChurch) throw unauthorized('This form only takes submissions from people of its church');
  checkOpen(form);

  const questions = await listQuestions(tx, form.churchId, form.id);
  const byId = new Map(questions.map((q) => [q.id, q]));
  item.answers.forEach((a, i) => {
    if (!byId.has(a.questionId)) throw badRequest(`answers[${i}].questionId`, 'not a question of this form');
  });
  for (const q of questions) {
    if (q.required && !item.answers.some((a) => a.questionId === q.id && a.value?.trim())) {
      throw badRequest('answers', `${q.title ?? 'A question'} is required`);
    }
  }
  const answered = item.answers.map((a) => ({ question: byId.get(a.questionId)!, value: a.value ?? '' }));
  const byTitle = (title: string) => answered.find((a) => a.question.title?.trim().toLowerCase() === title)?.value.trim() || undefined;
  const emailAnswer = answered.find((a) => a.question.fieldType.toLowerCase() === 'email' && EmailAddress.safeParse(a.value.trim()).success);
  const email = emailAnswer?.value.trim().toLowerCase() ?? item.email;
  const firstName = item.firstName ?? byTitle('first name');
  const lastName = item.lastName ?? byTitle('last name');

  let person: PersonContact | undefined;
  let contentType: string | null = item.contentType ?? 'form';
  let contentId: string | null = item.contentId ?? (contentType === 'form' ? form.id : null);
  if (form.autoCreatePerson && email) {
    person = (await findPersonByEmail(tx, form.churchId, email)) ?? (await createGuest(tx, form.churchId, { email, firstName, lastName }, reporter));
    contentType = 'person';
    contentId = person.id;
  } else if (contentType === 'person' && contentId) {
    checkMayAttach(actor, sameChurch, contentId);
    person = await findPerson(tx, form.churchId, contentId);
    if (!person) throw notFound('Person');
  } else if (item.contentId && CONTENT.has(contentType)) {
    // the church's own tables only: no other module is asked inside this transaction
    const foreign = await foreignReferences(tx, at.internal, form.churchId, [{ contentId }], CONTENT.get(contentType)!, (_i, field) => at.param(field));
    if (foreign.length) throw validationFailed(foreign);
  }

  const submission = await insertSubmission(tx, {
    id: randomUUID(),
    churchId: form.churchId,
    formId: form.id,
    contentType,
    contentId,
    submittedBy: sameChurch ? actor.personId : null,
    submissionDate: new Date(),
  });
  const answerRows = await insertAnswers(
    tx,
    answered.map((a) => ({ id: randomUUID(), churchId: form.churchId, formSubmissionId: submission.id, questionId: a.question.id, value: a.value })),
  );

  const fields: MergeFields = {
    firstName: person?.firstName || firstName || (sameChurch ? actor.firstName : undefined) || '',
    lastName: person?.lastName || lastName || (sameChurch ? actor.lastName : undefined) || '',
    email: email ?? person?.email ?? actor.email ?? '',
    formName: form.name,
    answers: answered.map((a) => ({ title: a.question.title ?? '', value: a.value })),
  };
  for (const to of await notificationEmails(tx, form.churchId, form.id)) mails.push(notificationEmail(to, fields));
  const submitterEmail = email ?? actor.email;
  if (form.followUpSubject && form.followUpBody && submitterEmail) {
    mails.push(followUpEmail(submitterEmail, form.followUpSubject, form.followUpBody, fields));
  }
  return { ...submission, answers: answerRows };
}

/** The caller's own person, or anyone's with an editor permission; a token's permissions count only in its church. */
function checkMayAttach(actor: Actor, sameChurch: boolean, personId: string) {
  if (sameChurch && (personId === actor.personId || ATTACH_OTHERS.some((p) => hasPermission(actor, p)))) return;
  throw unauthorized(`Missing permission: ${ATTACH_OTHERS.join(' or ')}`);
}

/** Archived forms, and forms outside their access window, take no submissions. */
function checkOpen(form: FormRow) {
  const now = Date.now();
  if (form.archived) throw badRequest('formId', 'the form is archived');
  if (form.accessStartTime && form.accessStartTime.getTime() > now) throw badRequest('formId', 'the form is not open yet');
  if (form.accessEndTime && form.accessEndTime.getTime() < now) throw badRequest('formId', 'the form is closed');
}
