import { closeOnSignal, loadConfig, serviceUrls } from '@church/common';
import { buildGateway } from './app';
import { gatewayConfig } from './config';

async function main() {
  const config = loadConfig(gatewayConfig);
  const app = await buildGateway(config, serviceUrls(config));
  closeOnSignal(() => app.close());
  await app.listen({ host: config.HOST, port: config.PORT });
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
