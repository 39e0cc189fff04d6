import path from 'node:path';
import { useApp } from '@church/common/testing';
import { buildApp } from '../src/app';

export const MIGRATIONS = [path.join(__dirname, '..', 'drizzle', 'website'), path.join(__dirname, '..', 'drizzle', 'media')];

/** Starts the content app before the file's tests and closes it after. */
export const useContent = (opts: Parameters<typeof useApp>[3] = {}) => useApp('content', MIGRATIONS, buildApp, opts);
export { makeChurch } from '@church/common/testing';



