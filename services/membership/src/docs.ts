/**
 * What each group of this module's routes is about, for the people who call the API: a tag per table of the spec,
 * shown in the module's OpenAPI document (routes the spec does not list are grouped by path there).
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  'Users and login': 'Accounts and signing in: register, log in with a password, a link or a token, reset and change passwords and email addresses.',
  OAuth: 'Apps acting for a user: OAuth clients, authorization codes and tokens, and the device flow for TVs and kiosks.',
  People: 'The people of a church: their names, contact details, households and photos, searches, and the public directory.',
  Churches: 'Churches: registering one, its address and settings, switching between the churches of a user, and server administration.',
  Groups: 'Groups of people (small groups, ministries, teams): names, tags and labels, meeting details, public listings.',
  'Group members': 'Who belongs to which group, and who leads it.',
  Households: 'Households: the people who live together, for check-in and mailings.',
  'Roles, role members, role permissions, permissions': 'Who may do what: roles, the users in them, and the permissions each role holds.',
  Forms: 'Forms and their questions, and the answers people submit.',
  'Settings, domains, user-church, visibility, query, client errors': 'A church’s settings and web domains, a user’s link to a church, directory visibility, member queries and client error reports.',
};
