import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { REMOTE, actorOf, batchOf, checkReferences, messagingInternal, reportChanges, type ZodTypeProvider } from '@church/common';
import { conversations } from '../db/schema';
import { saveBlockedIps } from '../domain/blocked-ips';
import { clearBlockedIps } from '../repos/blocked-ips';
import { BlockedIp, ClearItem, Cleared, SaveBlockedIp } from '../schemas/blocked-ips';

const base = '/messaging/blockedips';

/** `/messaging/blockedips` (legacy chat blocks) and the signed twin content calls. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const hosts = requires('Chat.Host or StreamingServices.Edit');

  // A block is a moderation staff care about: reported to the audit log.
  app.post(base, { config: { access: hosts }, schema: { body: batchOf(SaveBlockedIp), response: { 200: z.array(BlockedIp) } } }, async (req) => {
    await checkReferences(req, req.body, { conversationId: conversations, serviceId: REMOTE.streamingServices });
    return saveBlockedIps(app.deps, actorOf(req), req.body);
  });

  // Spec: JWT, body `[{serviceId, churchId}]`; a user token clears only its own church's services.
  app.post(`${base}/clear`, { config: { access: requires('StreamingServices.Edit or Chat.Host') }, schema: { body: batchOf(ClearItem), response: { 200: Cleared } } }, async (req) =>
    app.db.transaction(async (tx) => {
      const removed = await clearBlockedIps(tx, req.body.filter((i) => i.churchId === req.auth.churchId));
      await reportChanges(app.deps, removed.map((r) => ({ churchId: r.churchId, entityType: 'blockedIp', entityId: r.id, action: 'destroyed', before: r })), { req, tx });
      return { removed: removed.length };
    }),
  );

  // Content calls this one server to server (signed) when streaming services are saved.
  app.post(messagingInternal.clearBlockedIps.path, { config: { access: 'internal' }, schema: { body: messagingInternal.clearBlockedIps.body, response: { 200: messagingInternal.clearBlockedIps.answer }, hide: true } }, async (req) =>
    app.db.transaction(async (tx) => {
      const removed = await clearBlockedIps(tx, req.body);
      await reportChanges(app.deps, removed.map((r) => ({ churchId: r.churchId, entityType: 'blockedIp', entityId: r.id, action: 'destroyed', before: r })), { tx });
      return { removed: removed.length };
    }),
  );
}
