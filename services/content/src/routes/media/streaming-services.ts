import type { FastifyInstance } from 'fastify';
import { anyUser, requires } from '@church/auth';
import { Empty, IdParams, actorOf, batchOf, checkBatch, deleteRow, getRow, notFound, saveRows, type ZodTypeProvider } from '@church/common';
import { sermons, streamingServices } from '../../db/media';
import { clearBlockedIps, listedTime, refreshServices, serviceIdOf } from '../../domain/media/streaming';
import { servicesOf } from '../../repos/media/streaming';
import { HostChatRoom, ServiceRefParams, StreamingServices, StreamingServiceSave } from '../../schemas/media-streaming';

const edit = requires('StreamingServices.Edit');

/** `/content/streamingServices`: one-time and weekly services; the list maintains itself. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // B1App's live page asks with the sealed id the preview gave it (StreamChatManager.checkHost); the staff app with the plain one.
  app.get('/content/streamingServices/:id/hostChat', { config: { access: requires('Chat.Host') }, schema: { params: ServiceRefParams, response: { 200: HostChatRoom } } }, async (req) => {
    const id = serviceIdOf(app.deps.secrets, req.params.id);
    if (!id) throw notFound('Streaming service');
    const service = await getRow(app.db, streamingServices, req.auth.churchId, id, 'Streaming service');
    return { room: app.deps.secrets.encrypt(`${service.id}host`) };
  });

  // The staff app adds each service's `timezoneOffset` (minutes, its browser's getTimezoneOffset()) to the
  // listed time to show the wall-clock time it was entered in, so the list answers the time moved back by it.
  app.get('/content/streamingServices', { config: { access: anyUser }, schema: { response: { 200: StreamingServices } } }, async (req) => {
    await refreshServices(app.db, req.auth.churchId);
    const rows = await servicesOf(app.db, req.auth.churchId);
    return rows.map((s) => ({ ...s, serviceTime: listedTime(s) }));
  });

  app.post('/content/streamingServices', { config: { access: edit }, schema: { body: batchOf(StreamingServiceSave), response: { 200: StreamingServices } } }, async (req) => {
    // the sermon a service shows is the church's (or `latest`: the newest one, whichever it is then)
    const shown = req.body.map((s) => ({ sermonId: s.sermonId === 'latest' ? undefined : s.sermonId }));
    await checkBatch(app.db, req, shown, { references: { sermonId: sermons } });
    const saved = await saveRows(app.db, streamingServices, req.auth.churchId, req.body);
    await clearBlockedIps(app.deps, actorOf(req), saved.map((s) => s.id));
    return saved;
  });

  app.delete('/content/streamingServices/:id', { config: { access: edit }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await deleteRow(app.db, streamingServices, req.auth.churchId, req.params.id);
    await clearBlockedIps(app.deps, actorOf(req), [req.params.id]);
    return {};
  });
}
