/**
 * What each group of this module's routes is about, for the people who call the API: a tag per table of the spec,
 * shown in the module's OpenAPI document (routes the spec does not list are grouped by path there).
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Reporting: 'Reports: their definitions and their results.',
};
