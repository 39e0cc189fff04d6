import { runWorker } from '@church/common';
import { definition } from './app';
import { configSchema } from './config';

void runWorker(definition, configSchema).catch((err) => {
  console.error(err);
  process.exit(1);
});
