import { z } from 'zod';
import { Id, IsoDate, OptionalText } from '@church/common';

/** Records of the forms area as the API answers and accepts them (forms, questions, submissions, answers, member permissions). */

export const Form = z.object({
  id: z.string(),
  churchId: z.string(),
  name: z.string(),
  contentType: z.string(),
  restricted: z.boolean(),
  accessStartTime: z.date().nullable(),
  accessEndTime: z.date().nullable(),
  archived: z.boolean(),
  autoCreatePerson: z.boolean(),
  followUpSubject: z.string().nullable(),
  followUpBody: z.string().nullable(),
  thankYouMessage: z.string().nullable(),
});
export const FormList = z.array(Form);

export const FormSave = z.object({
  id: Id.optional(),
  name: z.string().trim().min(1, 'name is required').max(200).optional(),
  /** `form`: a standalone form governed by member permissions; `person`, `group`, ...: extra fields of those records */
  contentType: z.string().trim().min(1).max(50).optional(),
  restricted: z.boolean().optional(),
  accessStartTime: IsoDate.nullish(),
  accessEndTime: IsoDate.nullish(),
  archived: z.boolean().optional(),
  autoCreatePerson: z.boolean().optional(),
  followUpSubject: z.string().trim().max(500).nullish(),
  followUpBody: z.string().max(50_000).nullish(),
  thankYouMessage: z.string().max(50_000).nullish(),
});

export const Question = z.object({
  id: z.string(),
  churchId: z.string(),
  formId: z.string(),
  parentId: z.string().nullable(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  fieldType: z.string(),
  placeholder: z.string().nullable(),
  sort: z.number(),
  choices: z.unknown(),
  required: z.boolean(),
});
export const QuestionList = z.array(Question);

export const QuestionSave = z.object({
  id: Id.optional(),
  formId: Id,
  parentId: Id.nullish(),
  title: OptionalText,
  description: OptionalText,
  fieldType: z.string().trim().min(1).max(50).optional(),
  placeholder: OptionalText,
  choices: z.array(z.object({ value: z.string().optional(), text: z.string().optional() }).passthrough()).max(500).nullish(),
  required: z.boolean().optional(),
});

export const Answer = z.object({
  id: z.string(),
  churchId: z.string(),
  formSubmissionId: z.string(),
  questionId: z.string(),
  value: z.string().nullable(),
});
export const AnswerList = z.array(Answer);

export const AnswerSave = z.object({
  id: Id.optional(),
  formSubmissionId: Id,
  questionId: Id,
  value: z.string().max(50_000).nullish(),
});

export const Submission = z.object({
  id: z.string(),
  churchId: z.string(),
  formId: z.string(),
  contentType: z.string().nullable(),
  contentId: z.string().nullable(),
  submittedBy: z.string().nullable(),
  submissionDate: z.date(),
  revisionDate: z.date().nullable(),
  form: Form.optional(),
  questions: QuestionList.optional(),
  answers: AnswerList.optional(),
});
export const SubmissionList = z.array(Submission);

export const SubmissionSave = z.object({
  formId: Id,
  /** what the submission is about; defaults to the form itself, or the (auto-created) person */
  contentType: z.string().trim().min(1).max(50).optional(),
  contentId: Id.optional(),
  /** the submitter's email when no question of fieldType `Email` asks for it */
  email: z.string().trim().toLowerCase().pipe(z.email({ message: 'must be an email address' })).optional(),
  firstName: z.string().trim().max(100).optional(),
  lastName: z.string().trim().max(100).optional(),
  answers: z.array(z.object({ questionId: Id, value: z.string().max(50_000).nullish() })).max(500).default([]),
});

export const MemberPermission = z.object({
  id: z.string(),
  churchId: z.string(),
  memberId: z.string(),
  contentType: z.string(),
  contentId: z.string(),
  action: z.string(),
  emailNotification: z.boolean(),
  personName: z.string().nullable().optional(),
  formName: z.string().nullable().optional(),
});
export const MemberPermissionList = z.array(MemberPermission);

export const MemberPermissionSave = z.object({
  id: Id.optional(),
  memberId: Id,
  contentType: z.literal('form').optional(),
  /** the form */
  contentId: Id,
  /** `view` reads the form and its submissions; `admin` (or `edit`) also changes it (default `view`) */
  action: z.enum(['admin', 'edit', 'view']).optional(),
  emailNotification: z.boolean().optional(),
});
