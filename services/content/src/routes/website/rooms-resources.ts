import type { FastifyInstance } from 'fastify';
import { anyUser, requires } from '@church/auth';
import { REMOTE, badRequest, crud, itemParam, type ZodTypeProvider } from '@church/common';
import { calendarBlockouts, eventTemplates, resources, rooms } from '../../db/website';
import { checkNested } from '../../domain/references';
import { roomsAndResourcesOrder } from '../../repos/website/calendar';
import { CalendarBlockout, CalendarBlockoutSave, EventTemplate, EventTemplateSave, Resource, ResourceSave, Room, RoomSave } from '../../schemas/calendar';

const edit = requires('Content.Edit');

/**
 * `/content/rooms`, `/content/resources`, `/content/calendarBlockouts`, `/content/eventTemplates`: the standard
 * set each. Any signed-in user of the church reads them (B1App's booking picker and request screens list rooms
 * and resources for members); website editors (`Content.Edit`) write them.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const order = roomsAndResourcesOrder();
  crud(app, {
    path: '/content/rooms',
    name: 'Room',
    table: rooms,
    item: Room,
    save: RoomSave,
    view: anyUser,
    edit,
    orderBy: order.rooms,
    requiredOnCreate: ['name'],
    // the group whose members approve its bookings
    references: { approvalGroupId: REMOTE.groups },
    changes: { entityType: 'room' },
  });
  crud(app, {
    path: '/content/resources',
    name: 'Resource',
    table: resources,
    item: Resource,
    save: ResourceSave,
    view: anyUser,
    edit,
    orderBy: order.resources,
    requiredOnCreate: ['name'],
    references: { approvalGroupId: REMOTE.groups },
    changes: { entityType: 'resource' },
  });
  crud(app, {
    path: '/content/eventTemplates',
    name: 'Event template',
    table: eventTemplates,
    item: EventTemplate,
    save: EventTemplateSave,
    view: anyUser,
    edit,
    orderBy: order.templates,
    requiredOnCreate: ['name'],
    // its rooms (comma-separated text) and resources (JSON text), as TemplateEdit writes them, are the church's
    toRow: async (item, req) => {
      const i = (req.body as unknown[]).indexOf(item);
      const roomIds = (item.roomIds ?? '').split(',').map((x) => x.trim()).filter(Boolean);
      const resourceIds = item.resourcesJson ? (JSON.parse(item.resourcesJson) as Array<{ resourceId: string }>).map((r) => r.resourceId) : [];
      await checkNested(app.deps, req.auth.churchId, [{ roomIds, resourcesJson: resourceIds }], { roomIds: rooms, resourcesJson: resources }, (_j, field) => itemParam(req, i, field));
      return item;
    },
    changes: { entityType: 'eventTemplate' },
  });
  crud(app, {
    path: '/content/calendarBlockouts',
    name: 'Blockout',
    table: calendarBlockouts,
    item: CalendarBlockout,
    save: CalendarBlockoutSave,
    view: anyUser,
    edit,
    orderBy: order.blockouts,
    requiredOnCreate: ['startTime', 'endTime'],
    references: { roomId: rooms, resourceId: resources },
    changes: { entityType: 'calendarBlockout' },
    // A blockout holds one room, one resource, or (neither) everything; its end comes after its start.
    toRow: (item) => {
      if (item.roomId && item.resourceId) throw badRequest('resourceId', 'a blockout holds a room or a resource, not both');
      if (item.startTime && item.endTime && item.endTime <= item.startTime) throw badRequest('endTime', 'must be after startTime');
      return item;
    },
  });
}
