/**
 * What each group of this module's routes is about, for the people who call the API: a tag per table of the spec,
 * shown in the module's OpenAPI document (routes the spec does not list are grouped by path there).
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Plans: 'Service plans: who serves when, and the order of service.',
  'Plan types, plan items, plan feed, positions, times': 'What a plan is made of: plan types, the order of service, positions to fill and rehearsal or service times.',
  'Assignments, blockout dates, tasks': 'Volunteers’ assignments and their answers, the dates they are away, and tasks.',
  'Automations, actions, conditions, conjunctions': 'Automations that create tasks when people match conditions.',
  'Content provider auths and provider proxy': 'Links to outside lesson and media providers, and reading from them.',
};
