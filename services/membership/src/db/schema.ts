// The membership module's tables, one file per area; drizzle-kit reads this index.
export * from './schema/identity';
export * from './schema/people';
export * from './schema/groups';
export * from './schema/forms';
export * from './schema/settings';
export * from './schema/audit';
export * from './schema/integrations';
