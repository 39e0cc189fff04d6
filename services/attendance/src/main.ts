import { runMain } from '@church/common';
import { buildApp } from './app';
import { configSchema } from './config';

void runMain('attendance', configSchema, buildApp).catch((err) => {
  console.error(err);
  process.exit(1);
});
