import { runMigrate } from '@church/common';
import { definition } from './app';
import { configSchema } from './config';

void runMigrate(definition, configSchema).catch((err) => {
  console.error(err);
  process.exit(1);
});
