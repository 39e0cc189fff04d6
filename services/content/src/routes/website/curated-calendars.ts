import type { FastifyInstance } from 'fastify';
import { asc } from 'drizzle-orm';
import { anyUser, requires } from '@church/auth';
import { badRequest, crud, type ZodTypeProvider } from '@church/common';
import { curatedCalendars } from '../../db/website';
import { CuratedCalendar, CuratedCalendarSave } from './schemas';

/** `/content/curatedCalendars`: the standard set; a calendar's entries go with it. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  crud(app, {
    path: '/content/curatedCalendars',
    table: curatedCalendars,
    item: CuratedCalendar,
    save: CuratedCalendarSave,
    view: anyUser,
    edit: requires('Content.Edit'),
    orderBy: [asc(curatedCalendars.name), asc(curatedCalendars.id)],
    toRow: (item) => {
      if (!item.id && !item.name) throw badRequest('name', 'is required');
      return item;
    },
  });
}
