import type { FastifyInstance } from 'fastify';
import { anyUser, requires } from '@church/auth';
import { badRequest, crud, type ZodTypeProvider } from '@church/common';
import { curatedCalendars } from '../../db/website';
import { curatedCalendarOrder } from '../../repos/website/events';
import { CuratedCalendar, CuratedCalendarSave } from '../../schemas/website';

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
    orderBy: curatedCalendarOrder(),
    toRow: (item) => {
      if (!item.id && !item.name) throw badRequest('name', 'is required');
      return item;
    },
  });
}
