import { escapeHtml } from '@church/common';

export interface MergeValues {
  firstName?: string | null;
  lastName?: string | null;
  displayName?: string | null;
  email?: string | null;
  churchName?: string | null;
}

const FIELDS = ['firstName', 'lastName', 'displayName', 'email', 'churchName'] as const;

/** Replaces `{{field}}` merge fields (spaces allowed inside the braces); values are HTML-escaped. */
export function mergeFields(template: string, values: MergeValues, escape = true): string {
  return template.replace(/\{\{\s*([A-Za-z]+)\s*\}\}/g, (whole, name: string) => {
    if (!(FIELDS as readonly string[]).includes(name)) return whole;
    const value = values[name as keyof MergeValues] ?? '';
    return escape ? escapeHtml(value) : value;
  });
}
