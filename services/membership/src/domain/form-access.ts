import type { Claims } from '@church/auth';
import { hasPermission, rule } from '@church/auth';
import { notFound, unauthorized, type DbOrTx } from '@church/common';
import { findForm, permissionsOf, type FormRow } from '../repos/forms';

/** Reads need any member permission on the form; changes need one whose action is not `view`. */
export type FormAccessLevel = 'view' | 'edit';

/**
 * The spec's "Form access" on a route. Which form is concerned often arrives in the body or must be
 * looked up (a question, a member permission), so the route lets any caller through and the handler
 * calls `requireFormAccess` with the form: one rule, checked in one place.
 */
export const formAccess = rule('Form access', () => true);

/**
 * "Form access" (spec): Forms.Admin; or a member_permissions row of the caller's person on the form
 * (any action to read, `admin`/`edit` to change); or Forms.Edit on a form that member permissions do not
 * govern (contentType other than `form`, the same forms `GET /forms` lists to editors).
 */
export async function hasFormAccess(db: DbOrTx, auth: Claims, form: FormRow, level: FormAccessLevel = 'view'): Promise<boolean> {
  if (form.churchId !== auth.churchId) return false;
  if (hasPermission(auth, 'Forms.Admin')) return true;
  if (form.contentType !== 'form' && hasPermission(auth, 'Forms.Edit')) return true;
  if (!auth.personId) return false;
  const rows = await permissionsOf(db, form.churchId, auth.personId, form.id);
  return rows.some((r) => level === 'view' || r.action !== 'view');
}

/** The caller's church's form, or 404; then 401 unless the caller has Form access at `level`. */
export async function requireFormAccess(db: DbOrTx, auth: Claims, formId: string, level: FormAccessLevel = 'view'): Promise<FormRow> {
  const form = await findForm(db, auth.churchId, formId);
  if (!form) throw notFound('Form');
  if (!(await hasFormAccess(db, auth, form, level))) throw unauthorized('Missing permission: Form access');
  return form;
}
