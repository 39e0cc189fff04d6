import { baseConfig } from '@church/common';

/** The content deployable's environment: the shared base (see packages/common/src/config.ts). */
export const configSchema = baseConfig;
export type Config = typeof configSchema._output;
