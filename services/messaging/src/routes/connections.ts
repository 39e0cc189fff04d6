import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { z } from 'zod';
import { hasPermission, type Claims } from '@church/auth';
import { Id, badRequest, batchOf, itemParam, notFound, type ZodTypeProvider } from '@church/common';
import { messaging } from '../app';
import type { Connection } from '@church/common';
import { assertConversationAccess, assertPrivateAccess } from '../domain/access';
import { findConversation } from '../repos/conversations';

const ConversationKey = z.string().trim().min(1).max(100);
const SocketId = z.string().trim().min(1).max(100);

const Register = z.object({
  churchId: Id,
  conversationId: ConversationKey,
  socketId: SocketId,
  displayName: z.string().trim().max(200).nullish(),
  personId: Id.nullish(),
});

/** `/messaging/connections` and the WebSocket endpoint `/messaging/ws`. */
export default async function routes(root: FastifyInstance): Promise<void> {
  await root.register(websocket, { options: { maxPayload: 64 * 1024 } });
  const app = root.withTypeProvider<ZodTypeProvider>();
  const realtime = messaging.deps(app).providers.realtime;
  await realtime.start();
  app.addHook('onClose', async () => realtime.close());

  // The upgrade is public: a socket proves nothing until it registers through POST /connections.
  app.get('/messaging/ws', { websocket: true, config: { access: 'public' }, schema: { hide: true } }, (socket) => {
    void realtime.attach(socket);
  });

  /**
   * A registration receives every message of its conversation, so it is a read of it: a person-note conversation
   * of the church is gated as every other read (the notes permission, from a token of that church). Keys that are
   * not conversations of the church (`alerts`, a service id) pass.
   */
  const assertMayListen = async (auth: Claims | null | undefined, churchId: string, conversationId: string) => {
    if (!Id.safeParse(conversationId).success) return;
    const conv = await findConversation(app.db, churchId, conversationId);
    if (!conv) return;
    assertConversationAccess(auth?.churchId === churchId ? auth : null, conv.contentType);
    await assertPrivateAccess(app.db, auth, conv);
  };

  /** Socket ids are capabilities (they can drop or rename a connection): shown to chat hosts only. */
  const view = (conns: Connection[], showSockets: boolean) =>
    conns.map((c) => ({ churchId: c.churchId, conversationId: c.conversationId, displayName: c.displayName, personId: c.personId, ...(showSockets ? { socketId: c.socketId } : {}) }));

  app.get('/messaging/connections/:churchId/:conversationId', { config: { access: 'public' }, schema: { params: z.object({ churchId: Id, conversationId: ConversationKey }) } }, async (req) => {
    await assertMayListen(req.auth, req.params.churchId, req.params.conversationId);
    const conns = await realtime.list(req.params.churchId, req.params.conversationId);
    const host = !!req.auth && req.auth.churchId === req.params.churchId && hasPermission(req.auth, 'Chat.Host', 'MessagingApi');
    return view(conns, host);
  });

  app.post('/messaging/connections', { config: { access: 'public' }, schema: { body: batchOf(Register) } }, async (req) => {
    const saved: Connection[] = [];
    for (const [i, item] of req.body.entries()) {
      // A person is named only by a token of that person: a public caller cannot listen in as someone else.
      await assertMayListen(req.auth, item.churchId, item.conversationId);
      const personId = item.personId && req.auth && req.auth.churchId === item.churchId && req.auth.personId === item.personId ? item.personId : null;
      const conn: Connection = { churchId: item.churchId, conversationId: item.conversationId, socketId: item.socketId, displayName: item.displayName ?? null, personId, ipAddress: req.ip };
      if (!(await realtime.register(conn))) throw badRequest(itemParam(req, i, 'socketId'), 'no open socket has this id');
      saved.push(conn);
    }
    const seen = new Set<string>();
    for (const c of saved) {
      const key = `${c.churchId}|${c.conversationId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      await realtime.attendance(c.churchId, c.conversationId);
    }
    return view(saved, true);
  });

  app.post('/messaging/connections/setName', { config: { access: 'public' }, schema: { body: z.object({ socketId: SocketId, name: z.string().trim().min(1).max(200) }) } }, async (req) => {
    const conns = await realtime.setName(req.body.socketId, req.body.name);
    if (!conns.length) throw notFound('Connection');
    for (const c of conns) await realtime.attendance(c.churchId, c.conversationId);
    return view(conns, true);
  });

  app.delete(
    '/messaging/connections/:churchId/:conversationId/:socketId',
    { config: { access: 'public' }, schema: { params: z.object({ churchId: Id, conversationId: ConversationKey, socketId: SocketId }) } },
    async (req) => {
      const conn = await realtime.unregister(req.params.churchId, req.params.conversationId, req.params.socketId);
      if (!conn) throw notFound('Connection');
      await realtime.attendance(req.params.churchId, req.params.conversationId);
      return {};
    },
  );

  app.post('/messaging/connections/tmpSendAlert', { config: { access: 'public' }, schema: { body: z.object({ churchId: Id, personId: Id }) } }, async (req) => {
    await realtime.publishToPerson(req.body.churchId, req.body.personId, { churchId: req.body.churchId, conversationId: 'alerts', action: 'alert', data: { personId: req.body.personId } });
    return { sent: true };
  });
}
