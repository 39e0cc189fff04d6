import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { z } from 'zod';
import { hasPermission, type Claims } from '@church/auth';
import { Id, badRequest, batchOf, itemParam, notFound, type ZodTypeProvider } from '@church/common';
import type { Connection } from '../realtime/store';
import { depsOf } from '../deps';
import { assertConversationAccess, assertPrivateAccess } from '../domain/access';
import { doorbellKey } from '../domain/doorbell';
import { peopleOfChurch } from '../domain/notify';
import { minuteLimiter } from '../domain/ping-limit';
import { realtimePush } from '../jobs/contracts';
import { findConversation } from '../repos/conversations';
import { Empty } from '../schemas/common';
import { AlertBody, ConnectionView, ConversationKey, Register, Sent, SetName, SocketId } from '../schemas/connections';

const base = '/messaging/connections';

/** A content room of person notes (`content-person-<id>`): its `conversationActivity` tells of a person's notes. */
const NOTE_ROOM = /^content-(person|personConfidential)-/;

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

  /**
   * A registration receives every message of its conversation, so it is a read of it: a person-note conversation
   * (or a person-note content room) of the church is gated as every other read (the notes permission, from a token
   * of that church), a paired private one to its two people. Keys that are not conversations of the church (`alerts`,
   * a service id) pass.
   */
  const assertMayListen = async (auth: Claims | null | undefined, churchId: string, conversationId: string) => {
    const ofChurch = auth?.churchId === churchId ? auth : null;
    const room = NOTE_ROOM.exec(conversationId);
    if (room) return assertConversationAccess(ofChurch, room[1]);
    if (!Id.safeParse(conversationId).success) return;
    const conv = await findConversation(app.db, churchId, conversationId);
    if (!conv) return;
    assertConversationAccess(ofChurch, conv.contentType);
    await assertPrivateAccess(app.db, auth, conv);
  };

  /** Socket ids are capabilities (they can drop or rename a connection): shown to chat hosts only. */
  const view = (conns: Connection[], showSockets: boolean) =>
    conns.map((c) => ({ churchId: c.churchId, conversationId: c.conversationId, displayName: c.displayName, personId: c.personId, ...(showSockets ? { socketId: c.socketId } : {}) }));

  app.get(
    `${base}/:churchId/:conversationId`,
    { config: { access: 'public' }, schema: { params: z.object({ churchId: Id, conversationId: ConversationKey }), response: { 200: z.array(ConnectionView) } } },
    async (req) => {
      await assertMayListen(req.auth, req.params.churchId, req.params.conversationId);
      const conns = await realtime.list(req.params.churchId, req.params.conversationId);
      const host = !!req.auth && req.auth.churchId === req.params.churchId && hasPermission(req.auth, 'Chat.Host', 'MessagingApi');
      return view(conns, host);
    },
  );

  app.post(base, { config: { access: 'public' }, schema: { body: batchOf(Register), response: { 200: z.array(ConnectionView) } } }, async (req) => {
    const saved: Connection[] = [];
    for (const [i, item] of req.body.entries()) {
      await assertMayListen(req.auth, item.churchId, item.conversationId);
      // A person is named only by a token of that person: a public caller cannot listen in as someone else. An
      // unproven person's `alerts` registration (the apps make it without a token) listens at their doorbell.
      const personId = item.personId && req.auth && req.auth.churchId === item.churchId && req.auth.personId === item.personId ? item.personId : null;
      const conversationId = !personId && item.personId && item.conversationId === 'alerts' ? doorbellKey(item.personId) : item.conversationId;
      const conn: Connection = { churchId: item.churchId, conversationId, socketId: item.socketId, displayName: item.displayName ?? null, personId, ipAddress: req.ip };
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
