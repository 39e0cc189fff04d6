import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { actorOf, batchOf, Empty, getRow, Id, IdParams, type ZodTypeProvider } from '@church/common';
import { gateways } from '../db/schema';
import { givingDeps } from '../deps';
import { gatewayItem, patchGateway, removeGateway, saveGateways } from '../domain/gateways';
import { churchGateways, publicGateway } from '../repos/gateways';
import { Gateway, GatewaySave, PublicGateway } from '../schemas';
import { itemParams } from './helpers';

/** `/giving/gateways`: a church's payment gateways; secrets sealed at rest and masked on every read. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = givingDeps(app);

  app.get('/giving/gateways', { config: { access: anyUser }, schema: { response: { 200: z.array(Gateway) } } }, async (req) =>
    (await churchGateways(app.db, req.auth.churchId)).map((g) => gatewayItem(deps.secrets, g)),
  );

  app.get('/giving/gateways/churchId/:churchId', { config: { access: 'public' }, schema: { params: z.object({ churchId: Id }), response: { 200: z.array(PublicGateway) } } }, async (req) =>
    (await churchGateways(app.db, req.params.churchId)).filter((g) => g.privateKey).map(publicGateway),
  );

  app.get(
    '/giving/gateways/configured/:churchId',
    { config: { access: 'public' }, schema: { params: z.object({ churchId: Id }), response: { 200: z.object({ configured: z.boolean() }) } } },
    async (req) => ({ configured: (await churchGateways(app.db, req.params.churchId)).some((g) => !!g.privateKey) }),
  );

  app.get('/giving/gateways/:id', { config: { access: requires('Settings.Edit') }, schema: { params: IdParams, response: { 200: Gateway } } }, async (req) =>
    gatewayItem(deps.secrets, await getRow(app.db, gateways, req.auth.churchId, req.params.id, 'Gateway')),
  );

  app.post('/giving/gateways', { config: { access: requires('Settings.Edit') }, schema: { body: batchOf(GatewaySave), response: { 200: z.array(Gateway) } } }, async (req) =>
    (await saveGateways(deps, actorOf(req), req.body, itemParams(req))).map((g) => gatewayItem(deps.secrets, g)),
  );

  app.patch('/giving/gateways/:id', { config: { access: requires('Settings.Edit') }, schema: { params: IdParams, body: GatewaySave.omit({ id: true }), response: { 200: Gateway } } }, async (req) =>
    gatewayItem(deps.secrets, await patchGateway(deps, actorOf(req), req.params.id, req.body)),
  );

  app.delete('/giving/gateways/:id', { config: { access: requires('Settings.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await removeGateway(deps, actorOf(req), req.params.id);
    return {};
  });
}
