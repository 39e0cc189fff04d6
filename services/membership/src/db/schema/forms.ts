import { boolean, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id, removed, timestamps } from '@church/common';

export const forms = pgTable(
  'forms',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    contentType: text('content_type').notNull().default('form'),
    restricted: boolean('restricted').notNull().default(false),
    accessStartTime: at('access_start_time'),
    accessEndTime: at('access_end_time'),
    archived: boolean('archived').notNull().default(false),
    autoCreatePerson: boolean('auto_create_person').notNull().default(false),
    followUpSubject: text('follow_up_subject'),
    followUpBody: text('follow_up_body'),
    thankYouMessage: text('thank_you_message'),
    removed: removed(),
    ...timestamps(),
  },
  (t) => [index('forms_church_idx').on(t.churchId, t.archived, t.name)],
);

export const questions = pgTable(
  'questions',
  {
    id: id(),
    churchId: churchId(),
    formId: uuid('form_id').notNull(),
    parentId: uuid('parent_id'),
    title: text('title'),
    description: text('description'),
    fieldType: text('field_type').notNull().default('Textbox'),
    placeholder: text('placeholder'),
    sort: integer('sort').notNull().default(0),
    choices: jsonb('choices'),
    required: boolean('required').notNull().default(false),
    removed: removed(),
    ...timestamps(),
  },
  (t) => [index('questions_form_idx').on(t.churchId, t.formId, t.sort)],
);

export const formSubmissions = pgTable(
  'form_submissions',
  {
    id: id(),
    churchId: churchId(),
    formId: uuid('form_id').notNull(),
    contentType: text('content_type'),
    contentId: uuid('content_id'),
    submittedBy: uuid('submitted_by'),
    submissionDate: at('submission_date').notNull().defaultNow(),
    revisionDate: at('revision_date'),
    ...timestamps(),
  },
  (t) => [index('form_submissions_form_idx').on(t.churchId, t.formId), index('form_submissions_content_idx').on(t.churchId, t.contentId)],
);

export const answers = pgTable(
  'answers',
  {
    id: id(),
    churchId: churchId(),
    formSubmissionId: uuid('form_submission_id').notNull(),
    questionId: uuid('question_id').notNull(),
    value: text('value'),
    ...timestamps(),
  },
  (t) => [index('answers_submission_idx').on(t.churchId, t.formSubmissionId)],
);

/** Per-form access of a person ("Form access" in the spec): action `view`, `edit` or `admin`. */
export const memberPermissions = pgTable(
  'member_permissions',
  {
    id: id(),
    churchId: churchId(),
    memberId: uuid('member_id').notNull(),
    contentType: text('content_type').notNull().default('form'),
    contentId: uuid('content_id').notNull(),
    action: text('action').notNull().default('view'),
    emailNotification: boolean('email_notification').notNull().default(false),
    ...timestamps(),
  },
  (t) => [index('member_permissions_content_idx').on(t.churchId, t.contentId), index('member_permissions_member_idx').on(t.churchId, t.memberId)],
);
