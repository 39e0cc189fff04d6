import { baseConfig } from '@church/common';
import { websiteConfig } from './config/website';
import { mediaConfig } from './config/media';

/** The content deployable's environment: the shared base and each half's settings. */
export const configSchema = baseConfig.extend({ ...websiteConfig.shape, ...mediaConfig.shape });
export type Config = typeof configSchema._output;
