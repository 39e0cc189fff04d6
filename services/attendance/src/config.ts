import { baseConfig } from '@church/common';

/** The attendance deployable's environment: the shared base (see packages/common/src/config.ts). */
export const configSchema = baseConfig;
export type Config = typeof configSchema._output;
