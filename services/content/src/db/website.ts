// The website half's tables (pages, sections, elements, blocks, links, styles, history, posts, redirects,
// settings, events and calendars).
export {};
