import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, IdParams, batchOf, checkBatch, notFound, reportChanges, actorOf, type ZodTypeProvider } from '@church/common';
import { sites } from '../db/schema';
import { checkDomains, saveDomains } from '../domain/domains';
import { PROXY_CONFIG_JOB } from '../jobs/proxy-config';
import { deleteDomain, findDomain, findDomainByName, listDomains } from '../repos/domains';
import { Domain, DomainList, PublicDomain, NameParams, DomainSave } from '../schemas/domains';

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/domains';
  const reconfigureProxy = async () => {
    try {
      await app.deps.queue.enqueue(PROXY_CONFIG_JOB, {});
    } catch (err) {
      app.log.error({ err }, 'could not queue the reverse-proxy update');
    }
  };

  app.get(base, { config: { access: anyUser }, schema: { response: { 200: DomainList } } }, (req) => listDomains(app.db, req.auth.churchId));

  app.get(`${base}/health/check`, { config: { access: 'public' }, schema: { response: { 200: z.object({ checked: z.number(), stale: z.number() }) } } }, () =>
    checkDomains(app.db),
  );

  app.get(`${base}/lookup/:domainName`, { config: { access: anyUser }, schema: { params: NameParams, response: { 200: Domain } } }, async (req) => {
    const domain = await findDomainByName(app.db, req.params.domainName);
    if (!domain || domain.churchId !== req.auth.churchId) throw notFound('Domain');
    return domain;
  });

  // Which church a custom domain belongs to: what a site needs before anyone signs in.
  app.get(
    `${base}/public/lookup/:domainName`,
    { config: { access: 'public' }, schema: { params: NameParams, response: { 200: PublicDomain } } },
    async (req) => {
      const domain = await findDomainByName(app.db, req.params.domainName);
      if (!domain) throw notFound('Domain');
      return domain;
    },
  );

  // B1Admin's domain settings "relink" button: sends the custom-domain list to the reverse proxy again (the
  // `membership.proxyConfig` job, as after a change). The Api left it anonymous; here it takes Settings.Edit.
  app.get(`${base}/caddy`, { config: { access: requires('Settings.Edit') }, schema: { response: { 200: Empty } } }, async () => {
    await app.deps.queue.enqueue(PROXY_CONFIG_JOB, {});
    return {};
  });

  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Domain } } }, async (req) => {
    const domain = await findDomain(app.db, req.auth.churchId, req.params.id);
    if (!domain) throw notFound('Domain');
    return domain;
  });

  app.post(base, { config: { access: requires('Settings.Edit') }, schema: { body: batchOf(DomainSave), response: { 200: DomainList } } }, async (req) => {
    // The site a domain serves is one of the church's.
    await checkBatch(app.db, req, req.body, { references: { siteId: sites } });
    const saved = await saveDomains(app.db, req.auth.churchId, req.body, { deps: app.deps, actor: actorOf(req) });
    await reconfigureProxy();
    return saved;
  });

  app.delete(`${base}/:id`, { config: { access: requires('Settings.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await app.db.transaction(async (tx) => {
      if (!(await deleteDomain(tx, req.auth.churchId, req.params.id))) throw notFound('Domain');
      await reportChanges(app.deps, [{ churchId: req.auth.churchId, entityType: 'domain', entityId: req.params.id, action: 'destroyed' }], { req, tx });
    });
    await reconfigureProxy();
    return {};
  });
}
