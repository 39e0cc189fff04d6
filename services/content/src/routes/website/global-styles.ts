import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, REMOTE, batchOf, checkBatch, deleteRow, findRow, IdParams, notFound, saveRows, type DbOrTx, type ZodTypeProvider } from '@church/common';
import { globalStyles } from '../../db/website';
import { ownStyles, stylesInUse, type StylesRow } from '../../repos/website/styles';
import { ChurchParams, GlobalStyle, GlobalStyleSave, SiteQuery } from '../../schemas/website';

const base = '/content/globalStyles';
const edit = requires('Content.Edit');

/** What a church without its own styles gets: a readable default palette and fonts (JSON text, as saved). */
export const DEFAULT_STYLES = {
  fonts: JSON.stringify({ body: 'Roboto', heading: 'Roboto' }),
  palette: JSON.stringify({ light: '#FFFFFF', lightAccent: '#DDDDDD', accent: '#0000DD', darkAccent: '#9999DD', dark: '#000000' }),
  typography: null,
  spacing: null,
  borderRadius: null,
  navStyles: null,
  customCss: null,
  customJs: null,
};

/** Styles as answered: `customJs` also under the apps' name `customJS`. */
const answer = ({ createdAt: _c, updatedAt: _u, ...fields }: Omit<StylesRow, 'id' | 'createdAt' | 'updatedAt'> & { id: string | null; createdAt?: Date; updatedAt?: Date }) => ({
  ...fields,
  customJS: fields.customJs,
});

/**
 * The styles of a site: its own row, else the main site's (with that row's id and site, so the staff app
 * saves a copy for the site instead of changing the main one), else the defaults (no id).
 */
async function stylesOf(db: DbOrTx, churchId: string, siteId: string | undefined) {
  return answer((await stylesInUse(db, churchId, siteId)) ?? { id: null, churchId, siteId: null, ...DEFAULT_STYLES });
}

/** `/content/globalStyles`: one set of site styles per church and site, defaults when none is saved. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(`${base}/church/:churchId`, { config: { access: 'public' }, schema: { params: ChurchParams, querystring: SiteQuery, response: { 200: GlobalStyle } } }, async (req) =>
    stylesOf(app.db, req.params.churchId, req.query.siteId),
  );
  app.get(base, { config: { access: anyUser }, schema: { querystring: SiteQuery, response: { 200: GlobalStyle } } }, async (req) => stylesOf(app.db, req.auth.churchId, req.query.siteId));

  // One row per church and site: a save with an id changes that row; without, the site's row when it has one.
  app.post(base, { config: { access: edit }, schema: { body: batchOf(GlobalStyleSave), response: { 200: z.array(GlobalStyle) } } }, async (req) => {
    const churchId = req.auth.churchId;
    await checkBatch(app.db, req, req.body, { references: { siteId: REMOTE.sites } });
    return app.db.transaction(async (tx) => {
      const out = [];
      for (const { id, ...fields } of req.body) {
        const existing = id ? await findRow(tx, globalStyles, churchId, id) : await ownStyles(tx, churchId, fields.siteId);
        if (id && !existing) throw notFound('Global styles');
        // A set of styles stays with its site.
        const { siteId: _site, ...changes } = fields;
        const [row] = await saveRows(tx, globalStyles, churchId, [existing ? { ...changes, id: existing.id } : { ...DEFAULT_STYLES, ...fields }]);
        out.push(answer(row!));
      }
      return out;
    });
  });

  app.delete(`${base}/:id`, { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await deleteRow(app.db, globalStyles, req.auth.churchId, req.params.id);
    return {};
  });
}
