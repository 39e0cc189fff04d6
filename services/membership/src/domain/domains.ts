import { lookup } from 'node:dns/promises';
import { conflict, DAY_MS, saveRows, type Db } from '@church/common';
import { domains } from '../db/schema';
import { domainsToCheck, findDomainByName, markChecked, type DomainRow } from '../repos/domains';
import { report as reportTo, type Reporter } from './report';

/** How the health check resolves a name; replaceable so tests need no outside DNS. */
export const dnsCheck = {
  resolve: (host: string): Promise<unknown> => lookup(host),
  timeoutMs: 2_000,
};

const CHECKS_PER_CALL = 25;

/** A host name: lower-case labels of letters, digits and inner hyphens, dot-separated, at most 253 characters. */
export const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * Batch save of custom domains in one transaction. Names are lower-cased and unique across churches:
 * a name another church holds is a 409; adding a name the church already has answers its row. Renaming
 * a domain clears its check state. The route checks first that each `siteId` is a site of the church.
 */
export function saveDomains(db: Db, churchId: string, items: Array<{ id?: string; domainName: string; siteId?: string | null }>, report?: Reporter): Promise<DomainRow[]> {
  return db.transaction(async (tx) => {
    const out: DomainRow[] = [];
    for (const item of items) {
      const site = item.siteId === undefined ? {} : { siteId: item.siteId };
      const taken = await findDomainByName(tx, item.domainName);
      if (taken && (taken.churchId !== churchId || (item.id && item.id !== taken.id))) throw conflict('This domain is already in use', 'domainName');
      if (taken && !item.id) {
        out.push(item.siteId === undefined ? taken : ((await saveRows(tx, domains, churchId, [{ id: taken.id, ...site }]))[0] as DomainRow));
        continue;
      }
      const values = taken ? { id: item.id, ...site } : { ...item, ...site, lastChecked: null, isStale: false };
      const [row] = await saveRows(tx, domains, churchId, [values]);
      out.push(row as DomainRow);
    }
    await reportTo(report, tx, out.map((d) => ({ churchId, entityType: 'domain', entityId: d.id, action: 'saved', after: { domainName: d.domainName, siteId: d.siteId } })));
    return out;
  });
}

/**
 * Checks up to 25 domains that were never checked, were found stale, or were last checked over a day
 * ago: a domain is stale when its name does not resolve within the timeout. Checks run concurrently, so
 * one call takes about one timeout at most.
 */
export async function checkDomains(db: Db): Promise<{ checked: number; stale: number }> {
  const now = new Date();
  const due = await domainsToCheck(db, new Date(now.getTime() - DAY_MS), CHECKS_PER_CALL);
  const results = await Promise.all(due.map(async (d) => ({ d, ok: await resolves(d.domainName) })));
  for (const { d, ok } of results) await markChecked(db, d.id, !ok, now);
  return { checked: results.length, stale: results.filter((r) => !r.ok).length };
}

async function resolves(host: string): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), dnsCheck.timeoutMs);
  });
  try {
    return await Promise.race([dnsCheck.resolve(host).then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
