/**
 * What each group of this module's routes is about, for the people who call the API: a tag per table of the spec,
 * shown in the module's OpenAPI document (routes the spec does not list are grouped by path there).
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Pages: 'The pages of a church’s website.',
  'Sections, elements, blocks, links, global styles': 'What website pages are built of: sections, elements, reusable blocks, navigation links and the site’s styles.',
  'Page history': 'Earlier versions of a page, and restoring one.',
  'Blog posts': 'The church’s blog.',
  Redirects: 'Old website addresses sent on to new ones.',
  Sermons: 'Sermons: videos, their details, and imports from video hosts.',
  Playlists: 'Sermon series and playlists.',
  'Streaming services, preview': 'Live-stream service times and the live page’s preview.',
  'Events, exceptions, curated calendars and events': 'Calendar events of groups and the church, recurring events and their exceptions, and curated calendars.',
  'Files and gallery': 'Uploaded files and the image gallery.',
  Bibles: 'Bible translations, books, chapters and verses.',
  'Songs, details, links, arrangements, keys': 'The church’s songs, their shared details and links, arrangements and keys.',
  'Settings and support': 'Website and content settings, and support questions.',
  'Sheet-music provider': 'Linking a sheet-music provider account and reading its music.',
};
