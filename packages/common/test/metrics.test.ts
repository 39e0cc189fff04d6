import { createMetrics } from '../src/metrics';

describe('the outbox gauges', () => {
  it('answer the depth while the database answers, and no old values (readable 0) while it does not', async () => {
    let up = true;
    const registry = createMetrics({ queue: () => ({ depth: async () => (up ? { pending: 3, sent: 2, failed: 1 } : Promise.reject(new Error('database away'))) }) });
    const first = await registry.metrics();
    expect(first).toMatch(/job_outbox_jobs\{state="pending"\} 3/);
    expect(first).toMatch(/job_outbox_readable 1/);
    up = false;
    const second = await registry.metrics();
    expect(second).not.toMatch(/job_outbox_jobs\{state=/);
    expect(second).toMatch(/job_outbox_readable 0/);
    up = true;
    expect(await registry.metrics()).toMatch(/job_outbox_jobs\{state="sent"\} 2/);
  });
});
