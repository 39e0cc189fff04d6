import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { batchOf, deleteRow, Id, IdParams, notFound, type DbOrTx, type ZodTypeProvider } from '@church/common';
import { globalStyles } from '../../db/website';
import { GlobalStyle, GlobalStyleSave } from './schemas';

const base = '/content/globalStyles';
const edit = requires('Content.Edit');

/** What a church without its own styles gets: a readable default palette and fonts (JSON text, as saved). */
export const DEFAULT_STYLES = {
  fonts: JSON.stringify({ body: 'Roboto', heading: 'Roboto' }),
  palette: JSON.stringify({ light: '#FFFFFF', lightAccent: '#DDDDDD', accent: '#0000DD', darkAccent: '#9999DD', dark: '#000000' }),
  typography: null,
  spacing: null,
  borderRadius: null,
  customCss: null,
  customJs: null,
};

async function stylesOf(db: DbOrTx, churchId: string) {
  const [row] = await db.select().from(globalStyles).where(eq(globalStyles.churchId, churchId)).limit(1);
  return row ?? { id: null, churchId, ...DEFAULT_STYLES };
}

/** `/content/globalStyles`: one set of site styles per church, defaults when none is saved. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(`${base}/church/:churchId`, { config: { access: 'public' }, schema: { params: z.object({ churchId: Id }), response: { 200: GlobalStyle } } }, async (req) =>
    stylesOf(app.db, req.params.churchId),
  );
  app.get(base, { config: { access: anyUser }, schema: { response: { 200: GlobalStyle } } }, async (req) => stylesOf(app.db, req.auth.churchId));

  // One row per church: a save without an id updates the church's styles when it has them.
  app.post(base, { config: { access: edit }, schema: { body: batchOf(GlobalStyleSave), response: { 200: z.array(GlobalStyle) } } }, async (req) => {
    const churchId = req.auth.churchId;
    return app.db.transaction(async (tx) => {
      const out = [];
      for (const { id, ...fields } of req.body) {
        const [existing] = await tx.select().from(globalStyles).where(eq(globalStyles.churchId, churchId)).limit(1);
        if (id && existing?.id !== id) throw notFound('Global styles');
        if (existing) {
          const [row] = await tx
            .update(globalStyles)
            .set({ ...fields, updatedAt: new Date() })
            .where(and(eq(globalStyles.churchId, churchId), eq(globalStyles.id, existing.id)))
            .returning();
          out.push(row!);
        } else {
          const [row] = await tx.insert(globalStyles).values({ ...DEFAULT_STYLES, ...fields, id: randomUUID(), churchId }).returning();
          out.push(row!);
        }
      }
      return out;
    });
  });

  app.delete(`${base}/:id`, { config: { access: edit }, schema: { params: IdParams } }, async (req) => {
    await deleteRow(app.db, globalStyles, req.auth.churchId, req.params.id);
    return {};
  });
}
