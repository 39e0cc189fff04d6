import { baseConfig } from '@church/common';
import { websiteConfig } from './config/website';
import { mediaConfig } from './config/media';

/** Content's own settings: each half's. */
export const contentSettings = websiteConfig.extend(mediaConfig.shape);
/** The content deployable's environment: the shared base and each half's settings. */
export const configSchema = baseConfig.extend(contentSettings.shape);
export type Config = typeof configSchema._output;
