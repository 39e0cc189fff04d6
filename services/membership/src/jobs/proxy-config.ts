import { z } from 'zod';
import { defineJob } from '@church/common';
import type { MembershipDeps } from '../deps';
import { allDomains } from '../repos/domains';

export const PROXY_CONFIG_JOB = 'membership.proxyConfig';

/**
 * After a domain change, POSTs every church's custom domains to the reverse proxy's configuration
 * endpoint (`PROXY_CONFIG_URL`) as `{domains: [{domainName, churchId}]}`. Without the setting the job logs
 * and does nothing. The list is read when the job runs, so a late retry still sends the current state.
 */
export function proxyConfigJob(deps: MembershipDeps) {
  return defineJob({
    name: PROXY_CONFIG_JOB,
    schema: z.object({}).passthrough(),
    attempts: 3,
    backoffMs: 1000,
    handler: async (_data, ctx) => {
      const url = deps.config.PROXY_CONFIG_URL;
      if (!url) {
        ctx.log.info('PROXY_CONFIG_URL is not set; reverse-proxy configuration not updated');
        return;
      }
      const domains = (await allDomains(deps.db)).map((d) => ({ domainName: d.domainName, churchId: d.churchId }));
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ domains }),
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`proxy configuration endpoint answered ${res.status}`);
    },
  });
}
