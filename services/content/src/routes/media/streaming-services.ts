import type { FastifyInstance, FastifyRequest } from 'fastify';
import { asc } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, Id, IdParams, IsoDate, batchOf, deleteRow, getRow, listRows, saveRows, type ZodTypeProvider } from '@church/common';
import { streamingServices } from '../../db/media';
import { listedTime, refreshServices } from '../../domain/media/streaming';

const StreamingService = z.object({
  id: z.string(),
  churchId: z.string(),
  label: z.string().nullable(),
  serviceTime: z.date(),
  earlyStart: z.number(),
  duration: z.number(),
  chatBefore: z.number(),
  chatAfter: z.number(),
  provider: z.string().nullable(),
  providerKey: z.string().nullable(),
  videoUrl: z.string().nullable(),
  timezoneOffset: z.number().nullable(),
  recurring: z.boolean(),
  sermonId: z.string().nullable(),
});
/** Every length of a service is in seconds, as the apps send and read them. */
const Seconds = z.coerce.number().int().min(0).max(7 * 24 * 3600);
const StreamingServiceSave = z.object({
  id: Id.optional(),
  label: z.string().trim().max(200).nullish(),
  serviceTime: IsoDate,
  earlyStart: Seconds.optional(),
  duration: z.coerce.number().int().min(1).max(24 * 3600).optional(),
  chatBefore: Seconds.optional(),
  chatAfter: Seconds.optional(),
  provider: z.string().trim().max(50).nullish(),
  providerKey: z.string().trim().max(1000).nullish(),
  videoUrl: z.string().trim().max(2000).nullish(),
  timezoneOffset: z.coerce.number().int().min(-24 * 60).max(24 * 60).nullish(),
  recurring: z.boolean().optional(),
  sermonId: z.string().max(100).nullish(),
});
const edit = requires('StreamingServices.Edit');

/** Messaging keeps the chat's blocked IPs per service; a saved or deleted service starts with none. */
async function clearBlockedIps(app: FastifyInstance, req: FastifyRequest, churchId: string, serviceIds: string[]) {
  for (const serviceId of serviceIds) {
    try {
      await app.deps.internal.post('messaging', '/messaging/internal/blockedips/clear', { churchId, serviceId }, { requestId: req.id });
    } catch (err) {
      req.log.warn({ err, serviceId }, 'could not clear the blocked IPs of a streaming service');
    }
  }
}

/** `/content/streamingServices`: one-time and weekly services; the list maintains itself. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/streamingServices/:id/hostChat', { config: { access: requires('Chat.Host') }, schema: { params: IdParams } }, async (req) => {
    const service = await getRow(app.db, streamingServices, req.auth.churchId, req.params.id, 'Streaming service');
    return { room: app.deps.secrets.encrypt(`${service.id}host`) };
  });

  // The staff app adds each service's `timezoneOffset` (minutes, its browser's getTimezoneOffset()) to the
  // listed time to show the wall-clock time it was entered in, so the list answers the time moved back by it.
  app.get('/content/streamingServices', { config: { access: anyUser }, schema: { response: { 200: z.array(StreamingService) } } }, async (req) => {
    await refreshServices(app.db, req.auth.churchId);
    const rows = await listRows(app.db, streamingServices, req.auth.churchId, { orderBy: asc(streamingServices.serviceTime) });
    return rows.map((s) => ({ ...s, serviceTime: listedTime(s) })) as never;
  });

  app.post('/content/streamingServices', { config: { access: edit }, schema: { body: batchOf(StreamingServiceSave), response: { 200: z.array(StreamingService) } } }, async (req) => {
    const saved = await saveRows(app.db, streamingServices, req.auth.churchId, req.body);
    await clearBlockedIps(app, req, req.auth.churchId, saved.map((s) => s.id));
    return saved as never;
  });

  app.delete('/content/streamingServices/:id', { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await deleteRow(app.db, streamingServices, req.auth.churchId, req.params.id);
    await clearBlockedIps(app, req, req.auth.churchId, [req.params.id]);
    return {};
  });
}
