import type { FastifyInstance } from 'fastify';
import { and, asc, eq, gte } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { badRequest, batchOf, crud, itemParam, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { blockoutDates } from '../db/schema';
import { utcDay } from '../domain/tree';
import { BlockoutDate, BlockoutDateSave, IdsQuery } from '../schemas';

const base = '/doing/blockoutDates';
const List = z.array(BlockoutDate);

/** `/doing/blockoutDates`: days people cannot serve; autofill honours them. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  app.get(`${base}/ids`, { ...read, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: List } } }, async (req) => (await rowsByIds(app.db, blockoutDates, req.auth.churchId, req.query.ids)) as never);
  app.get(`${base}/my`, { ...read, schema: { response: { 200: List } } }, async (req) =>
    req.auth.personId
      ? app.db.select().from(blockoutDates).where(and(eq(blockoutDates.churchId, req.auth.churchId), eq(blockoutDates.personId, req.auth.personId))).orderBy(asc(blockoutDates.startDate))
      : [],
  );
  app.get(`${base}/upcoming`, { ...read, schema: { response: { 200: List } } }, (req) =>
    app.db.select().from(blockoutDates).where(and(eq(blockoutDates.churchId, req.auth.churchId), gte(blockoutDates.endDate, utcDay()))).orderBy(asc(blockoutDates.startDate)),
  );
  app.post(base, { ...read, schema: { body: batchOf(BlockoutDateSave), response: { 200: List } } }, (req) => {
    // Defaults apply to new records only: an update without them keeps what is stored.
    const rows = req.body.map((item, i) => {
      if (item.id) return item;
      const personId = item.personId ?? req.auth.personId;
      if (!personId) throw badRequest(itemParam(req, i, 'personId'), 'personId is required (the caller has no person record)');
      return { ...item, personId, endDate: item.endDate ?? item.startDate };
    });
    return app.db.transaction(async (tx) => {
      // An update that moves only the start keeps the stored end: it must not land after it (a range that
      // ends before it starts blocks out no day at all, and autofill would book the person).
      const startOnly = req.body.flatMap((item, i) => (item.id && !item.endDate ? [{ i, id: item.id.toLowerCase(), startDate: item.startDate }] : []));
      const storedEnd = new Map((await rowsByIds(tx, blockoutDates, req.auth.churchId, startOnly.map((u) => u.id))).map((r) => [r.id, r.endDate]));
      for (const { i, id, startDate } of startOnly) {
        const end = storedEnd.get(id);
        if (end !== undefined && end < startDate) throw badRequest(itemParam(req, i, 'startDate'), `must not be after endDate (${end}); send endDate too`);
      }
      return (await saveRows(tx, blockoutDates, req.auth.churchId, rows)) as never;
    });
  });
  crud(app, { path: base, table: blockoutDates, item: BlockoutDate, save: BlockoutDateSave, view: anyUser, edit: anyUser, only: ['get', 'delete'] });
}
