import { boolean, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id, timestamps } from '@church/common';

export const settings = pgTable(
  'settings',
  {
    id: id(),
    churchId: churchId(),
    keyName: text('key_name').notNull(),
    value: text('value'),
    public: boolean('public').notNull().default(false),
    ...timestamps(),
  },
  (t) => [uniqueIndex('settings_church_key_uq').on(t.churchId, t.keyName)],
);

export const domains = pgTable(
  'domains',
  {
    id: id(),
    churchId: churchId(),
    domainName: text('domain_name').notNull(),
    /** the church's additional website (`sites`) the domain serves; null: the church's main site */
    siteId: uuid('site_id'),
    lastChecked: at('last_checked'),
    isStale: boolean('is_stale').notNull().default(false),
    ...timestamps(),
  },
  (t) => [uniqueIndex('domains_name_uq').on(t.domainName), index('domains_church_idx').on(t.churchId)],
);

/** The church's data version, raised at commit by every change to people, groups and group members (see @church/common snapshots). */
export { dataVersions } from '@church/common';
