import { runMain } from '@church/common';
import { buildApp } from './app';
import { configSchema } from './config';

void runMain('membership', configSchema, buildApp).catch((err) => {
  console.error(err);
  process.exit(1);
});
