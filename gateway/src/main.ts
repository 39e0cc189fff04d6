import { createServer } from 'node:http';
import { closeOnSignal, loadConfig, serviceUrls } from '@church/common';
import { buildGateway } from './app';
import { gatewayConfig } from './config';

async function main() {
  const config = loadConfig(gatewayConfig);
  const app = await buildGateway(config, serviceUrls(config));
  // Metrics on a port of their own, for the scraper inside the cluster, never on the public one.
  const metrics = config.METRICS_PORT
    ? createServer((req, res) => {
        if (req.url !== '/metrics') return void res.writeHead(404).end();
        void app.metricsRegistry.metrics().then((text) => res.writeHead(200, { 'content-type': app.metricsRegistry.contentType }).end(text));
      }).listen(config.METRICS_PORT, config.HOST)
    : undefined;
  closeOnSignal(async () => {
    metrics?.close();
    await app.close();
  });
  await app.listen({ host: config.HOST, port: config.PORT });
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
