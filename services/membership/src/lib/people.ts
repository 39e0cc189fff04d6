/** Statuses a `Member`-level viewer (People.View Members) may see: members only, not visitors or guests. */
export const MEMBER_LEVEL_STATUSES = ['Member', 'Staff'];

/** `%`, `_` and `\` in user text match literally in LIKE patterns. */
export function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
