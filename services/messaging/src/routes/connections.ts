import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { z } from 'zod';
import { hasPermission } from '@church/auth';
import { Id, batchOf, itemParam, notFound, optionalActorOf, type ZodTypeProvider } from '@church/common';
import type { Connection } from '../realtime/store';
import { depsOf } from '../deps';
import { assertMayListen, registerConnections } from '../domain/connections';
import { peopleOfChurch } from '../domain/notify';
import { minuteLimiter } from '../domain/ping-limit';
import { realtimePush } from '../jobs/contracts';
import { Empty } from '../schemas/common';
import { AlertBody, ConnectionView, ConversationKey, Register, Sent, SetName, SocketId } from '../schemas/connections';

const base = '/messaging/connections';

/** `/messaging/connections` and the WebSocket endpoint `/messaging/ws`. */
export default async function routes(root: FastifyInstance): Promise<void> {
  await root.register(websocket, { options: { maxPayload: 64 * 1024 } });
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = depsOf(app);
  const realtime = deps.providers.realtime;
  await realtime.start();
  app.addHook('onClose', async () => realtime.close());

  // The upgrade is public: a socket proves nothing until it registers through POST /connections.
  app.get('/messaging/ws', { websocket: true, config: { access: 'public' }, schema: { hide: true } }, (socket) => {
    void realtime.attach(socket);
  });

  /** Socket ids are capabilities (they can drop or rename a connection): shown to chat hosts only. */
  const view = (conns: Connection[], showSockets: boolean) =>
    conns.map((c) => ({ churchId: c.churchId, conversationId: c.conversationId, displayName: c.displayName, personId: c.personId, ...(showSockets ? { socketId: c.socketId } : {}) }));

  app.get(
    `${base}/:churchId/:conversationId`,
    { config: { access: 'public' }, schema: { params: z.object({ churchId: Id, conversationId: ConversationKey }), response: { 200: z.array(ConnectionView) } } },
    async (req) => {
      await assertMayListen(deps, req.auth, req.params.churchId, req.params.conversationId);
      const conns = await realtime.list(req.params.churchId, req.params.conversationId);
      const host = !!req.auth && req.auth.churchId === req.params.churchId && hasPermission(req.auth, 'Chat.Host', 'MessagingApi');
      return view(conns, host);
    },
  );

  app.post(base, { config: { access: 'public' }, schema: { body: batchOf(Register), response: { 200: z.array(ConnectionView) } } }, async (req) =>
    view(await registerConnections(deps, optionalActorOf(req), req.ip, req.body, (i, field) => itemParam(req, i, field)), true),
  );

  app.post(`${base}/setName`, { config: { access: 'public' }, schema: { body: SetName, response: { 200: z.array(ConnectionView) } } }, async (req) => {
    const conns = await realtime.setName(req.body.socketId, req.body.name);
    if (!conns.length) throw notFound('Connection');
    for (const c of conns) await realtime.attendance(c.churchId, c.conversationId);
    return view(conns, true);
  });

  app.delete(
    `${base}/:churchId/:conversationId/:socketId`,
    { config: { access: 'public' }, schema: { params: z.object({ churchId: Id, conversationId: ConversationKey, socketId: SocketId }), response: { 200: Empty } } },
    async (req) => {
      const conn = await realtime.unregister(req.params.churchId, req.params.conversationId, req.params.socketId);
      if (!conn) throw notFound('Connection');
      await realtime.attendance(req.params.churchId, req.params.conversationId);
      return {};
    },
  );

  // Public as the spec has it, so bounded as `ping` is: a person of that church (membership says; 404 otherwise), so
  // many a minute per church.
  const limitAlerts = minuteLimiter(() => deps.config.PING_RATE_PER_MINUTE);
  app.post(`${base}/tmpSendAlert`, { config: { access: 'public' }, schema: { body: AlertBody, response: { 200: Sent } } }, async (req) => {
    const { churchId, personId } = req.body;
    limitAlerts(churchId);
    if (!(await peopleOfChurch(deps, churchId, [personId])).has(personId)) throw notFound('Person');
    await deps.queue.enqueue(realtimePush, { churchId, personId, conversationId: 'alerts', action: 'alert', data: [{ personId }] });
    return { sent: true };
  });
}
