import type { ModuleDeps } from '@church/common';
import type { Config } from '../config';

/** The content module's outside systems (the media half's video hosts, AI, stock photos, speech, Bible source). */
export type ContentProviders = Record<string, never>;

export function buildProviders(_deps: ModuleDeps<Config, undefined>): ContentProviders {
  return {};
}
