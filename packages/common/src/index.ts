// Named parts, never a grab-bag: import what you use from here or from the part's own file.
export * from './config';
export * from './errors';
export * from './schemas';
export * from './columns';
export * from './db';
export * from './rows';
export * from './batch';
export * from './crud';
export * from './internal';
export * from './queue';
export * from './email';
export * from './storage';
export * from './crypto';
export * from './snapshots';
export * from './service';
export { RequestValidationError, exactShape } from './validation';
export * from './main';
