import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { saveRows, type TenantTable } from '@church/common';
import { blocks, curatedCalendars, elements, events, pages, resources, rooms, sections } from '../src/db/website';
import { registrationMembers, registrationSelections, registrationTypes, registrations } from '../src/db/registrations';
import { arrangements, playlists, sermons, songDetails, songs } from '../src/db/media';

/**
 * One of each of the module's own records, of another church (inserted as they are stored), by the body field
 * that names it: what the reference walk sends church A.
 */
export async function recordsOfAnotherChurch(app: FastifyInstance): Promise<Record<string, string>> {
  const churchId = randomUUID();
  const db = app.db;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each table's own columns
  const one = async (table: TenantTable, values: Record<string, any>) => ((await saveRows(db, table, churchId, [values])) as Array<{ id: string }>)[0]!.id;
  const pageId = await one(pages, { url: `/theirs-${randomUUID()}` });
  const blockId = await one(blocks, { name: 'Theirs', blockType: 'sectionBlock' });
  const sectionId = await one(sections, { pageId, zone: 'main', sort: 1 });
  const elementId = await one(elements, { sectionId, elementType: 'text', sort: 1 });
  const start = new Date('2026-03-01T10:00:00Z');
  const eventId = await one(events, { groupId: randomUUID(), title: 'Theirs', start, end: new Date(start.getTime() + 3_600_000), registrationEnabled: true });
  const curatedCalendarId = await one(curatedCalendars, { name: 'Theirs' });
  const roomId = await one(rooms, { name: 'Their room' });
  const resourceId = await one(resources, { name: 'Their projector' });
  const registrationTypeId = await one(registrationTypes, { eventId, name: 'Adult' });
  const selectionId = await one(registrationSelections, { eventId, name: 'T-shirt' });
  const registrationId = await one(registrations, { eventId, status: 'confirmed' });
  const registrationMemberId = await one(registrationMembers, { registrationId, firstName: 'Theirs' });
  const playlistId = await one(playlists, { title: 'Theirs' });
  const sermonId = await one(sermons, { playlistId, title: 'Theirs' });
  const songId = await one(songs, { name: 'Theirs' });
  const songDetailId = await one(songDetails, { title: 'Theirs' });
  const arrangementId = await one(arrangements, { songId, songDetailId, name: 'Theirs' });
  return {
    pageId,
    blockId,
    targetBlockId: blockId,
    sectionId,
    // an element's parent (elements) and a link's parent (links) alike: neither is a record of church A
    parentId: elementId,
    eventId,
    eventIds: eventId,
    curatedCalendarId,
    roomId,
    roomIds: roomId,
    resourceId,
    registrationTypeId,
    selectionId,
    registrationMemberId,
    playlistId,
    sermonId,
    songId,
    songDetailId,
    arrangementId,
  };
}
