import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission } from '@church/auth';
import { badRequest, crud, itemParam, REMOTE, rowsByIds, unauthorized, utcDay, type ZodTypeProvider } from '@church/common';
import { blockoutDates } from '../db/schema';
import { blockoutsOfPerson, ofPerson, upcomingBlockouts } from '../repos/blockout-dates';
import { BlockoutDate, BlockoutDateSave, IdsQuery } from '../schemas';

const base = '/doing/blockoutDates';
const List = z.array(BlockoutDate);
const othersRefused = () => unauthorized("Only holders of Plans.Edit can change another person's blockout dates");

/**
 * `/doing/blockoutDates`: days people cannot serve; autofill honours them. Anyone signed in reads them (the plan
 * screens check a team against them, spec); a person keeps their own (B1App's BlockoutDatesSection), and holders
 * of Plans.Edit anyone's (issue 31).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  app.get(`${base}/ids`, { ...read, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: List } } }, (req) => rowsByIds(app.db, blockoutDates, req.auth.churchId, req.query.ids));
  app.get(`${base}/my`, { ...read, schema: { response: { 200: List } } }, async (req) => (req.auth.personId ? blockoutsOfPerson(app.db, req.auth.churchId, req.auth.personId) : []));
  app.get(`${base}/upcoming`, { ...read, schema: { response: { 200: List } } }, (req) => upcomingBlockouts(app.db, req.auth.churchId, utcDay()));

  const mayEditOthers = (req: FastifyRequest) => hasPermission(req.auth, 'Plans.Edit');
  crud(app, {
    path: base,
    name: 'Blockout date',
    table: blockoutDates,
    item: BlockoutDate,
    save: BlockoutDateSave,
    view: anyUser,
    edit: anyUser,
    only: ['get', 'save', 'delete'],
    // the person is the church's (membership's)
    references: { personId: REMOTE.people },
    // Defaults apply to new records only: an update without them keeps what is stored.
    toRow: (item, req) => {
      const i = (req.body as unknown[]).indexOf(item);
      const personId = (item.personId ?? (item.id ? undefined : req.auth.personId))?.toLowerCase();
      if (!item.id && !personId) throw badRequest(itemParam(req, i, 'personId'), 'personId is required (the caller has no person record)');
      if (personId && personId !== req.auth.personId?.toLowerCase() && !mayEditOthers(req)) throw othersRefused();
      return item.id ? { ...item, ...(personId ? { personId } : {}) } : { ...item, personId, endDate: item.endDate ?? item.startDate };
    },
    // a person's own rows, unless they hold Plans.Edit
    scope: {
      where: (req, verb) => (verb === 'get' || mayEditOthers(req) ? undefined : ofPerson(req.auth.personId)),
      refuse: othersRefused,
    },
    // An update that moves only the start keeps the stored end: it must not land after it (a range that ends before
    // it starts blocks out no day at all, and autofill would book the person).
    afterSave: async (rows, req) => {
      for (const [i, row] of rows.entries()) {
        if (row.startDate > row.endDate) throw badRequest(itemParam(req, i, 'startDate'), `must not be after endDate (${row.endDate}); send endDate too`);
      }
    },
    changes: { entityType: 'blockoutDate' },
  });
}
