import { escapeHtml, type EmailMessage } from '@church/common';

/** What a follow-up template may refer to. */
export interface MergeFields {
  firstName: string;
  lastName: string;
  email: string;
  formName: string;
  /** question title → the submitted answer */
  answers: Array<{ title: string; value: string }>;
}

const FIELD = /\{\{\s*([^{}]+?)\s*\}\}/g;

/**
 * Fills `{{firstName}}`, `{{lastName}}`, `{{email}}`, `{{formName}}` and `{{answer:<question title>}}`
 * (names and titles match case-insensitively; an unknown field becomes empty). With `html`, values are
 * escaped: the template is the church's own HTML, the values are whatever a submitter typed.
 */
export function renderTemplate(template: string, fields: MergeFields, html: boolean): string {
  const answers = new Map(fields.answers.map((a) => [normalize(a.title), a.value]));
  return template.replace(FIELD, (_m, raw: string) => {
    const key = raw.trim();
    const lower = key.toLowerCase();
    let value = '';
    if (lower.startsWith('answer:')) value = answers.get(normalize(key.slice('answer:'.length))) ?? '';
    else if (lower === 'firstname') value = fields.firstName;
    else if (lower === 'lastname') value = fields.lastName;
    else if (lower === 'email') value = fields.email;
    else if (lower === 'formname') value = fields.formName;
    return html ? escapeHtml(value) : value;
  });
}

function normalize(title: string): string {
  return title.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The follow-up to the submitter: the form's subject and body templates, merged. */
export function followUpEmail(to: string, subject: string, body: string, fields: MergeFields): EmailMessage {
  return {
    to,
    // Subjects are plain text: no escaping, and no line breaks a submitter could smuggle into headers.
    subject: renderTemplate(subject, fields, false).replace(/[\r\n]+/g, ' ').slice(0, 300),
    html: renderTemplate(body, fields, true).replace(/\r?\n/g, '<br>'),
  };
}

/** The notice to the form's watchers (member permissions with emailNotification) of a new submission. */
export function notificationEmail(to: string, fields: MergeFields): EmailMessage {
  const rows = fields.answers
    .map((a) => `<tr><td><b>${escapeHtml(a.title)}</b></td><td>${escapeHtml(a.value).replace(/\r?\n/g, '<br>')}</td></tr>`)
    .join('');
  return {
    to,
    subject: `New submission: ${fields.formName}`.replace(/[\r\n]+/g, ' ').slice(0, 300),
    html: `<p>A new response was submitted to <b>${escapeHtml(fields.formName)}</b>.</p><table>${rows}</table>`,
  };
}
