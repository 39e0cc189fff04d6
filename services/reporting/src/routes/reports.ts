import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { anyUser } from '@church/auth';
import { actorOf, notFound, type ModuleDeps, type ServiceDeps, type ZodTypeProvider } from '@church/common';
import { sourceDatabaseUrls, type Config } from '../config';
import { createModuleQuery } from '../clients/module-query';
import type { ReportCatalog } from '../domain/definition';
import { definitionView } from '../domain/app-view';
import { reportsFor, runReport } from '../domain/engine';
import { KeyNameParams, ReportDefinitionList, ReportDefinitionView, ReportResultView, RunQuery } from '../schemas';

const base = '/reporting/reports';

/**
 * Spec table "Reporting (`/reporting/reports`)". Both routes are open to any signed-in user of the church: a
 * definition holds no data, and a run checks the report's own permission groups (401 when one is not met).
 */
export function reportRoutes(catalog: ReportCatalog, deps: (app: { deps: ServiceDeps }) => ModuleDeps<Config, Record<string, never>>): FastifyPluginAsync {
  return async function routes(parent: FastifyInstance) {
    const app = parent.withTypeProvider<ZodTypeProvider>();
    const { config, internal } = deps(app);
    const source = createModuleQuery(sourceDatabaseUrls(config), internal, config.REPORT_POOL_SIZE);
    app.addHook('onClose', () => source.close());

    const find = (keyName: string) => {
      const report = catalog.get(keyName);
      if (!report) throw notFound('Report');
      return report;
    };

    // The staff app lists reports to open: only those the caller may run (every permission group met), so the
    // list is what the person can use; any one definition stays readable by key name.
    app.get(
      base,
      { config: { access: anyUser }, schema: { tags: ['Reports'], summary: 'The reports the caller may run, with their parameters.', response: { 200: ReportDefinitionList } } },
      async (req) => reportsFor(catalog.all(), actorOf(req)).map((report) => definitionView(report.definition)),
    );

    app.get(
      `${base}/:keyName`,
      { config: { access: anyUser }, schema: { tags: ['Reports'], summary: 'load a report definition by key name', params: KeyNameParams, response: { 200: ReportDefinitionView } } },
      async (req) => definitionView(find(req.params.keyName).definition),
    );

    app.get(
      `${base}/:keyName/run`,
      {
        config: { access: anyUser },
        schema: { tags: ['Reports'], summary: 'execute the report; parameters are query-string values, churchId comes from the token', params: KeyNameParams, querystring: RunQuery, response: { 200: ReportResultView } },
      },
      async (req) => runReport(find(req.params.keyName), { actor: actorOf(req), query: req.query, source, defaultTimeoutMs: config.REPORT_TIMEOUT_MS }),
    );
  };
}
