import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Id, type ZodTypeProvider } from '@church/common';
import { givingDeps } from '../../deps';
import { issuePass } from '../../domain/captcha-pass';
import { feeCents, feeKind } from '../../lib/fees';
import { amountOf, toCents } from '../../lib/money';
import { churchGateways, feeSettingsOf, publicGateway } from '../../repos/gateways';
import { ChurchQuery, FeeBody, PublicGateway } from '../../schemas';

const base = '/giving/donate';
const CaptchaBody = z.object({ token: z.string().trim().min(1, 'is required').max(4000) });
const Fee = z.object({ calculatedFee: z.number(), amount: z.number(), total: z.number(), currency: z.string(), type: z.string() });
const CaptchaAnswer = z.object({ success: z.boolean(), verificationToken: z.string().optional(), errors: z.array(z.string()) });

/** The public parts of `/giving/donate`: a church's gateways, the fee a donor may cover, and the captcha check. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(`${base}/gateways/:churchId`, { config: { access: 'public' }, schema: { params: z.object({ churchId: Id }), response: { 200: z.array(PublicGateway) } } }, async (req) =>
    (await churchGateways(app.db, req.params.churchId)).filter((g) => g.privateKey).map(publicGateway),
  );

  app.post(`${base}/fee`, { config: { access: 'public' }, schema: { querystring: ChurchQuery, body: FeeBody, response: { 200: Fee } } }, async (req) => {
    const { type, amount } = req.body;
    const rows = await churchGateways(app.db, req.query.churchId);
    const gateway = req.body.gatewayId ? rows.find((g) => g.id === req.body.gatewayId!.toLowerCase()) : req.body.provider ? rows.find((g) => g.provider === req.body.provider) : rows[0];
    const currency = req.body.currency ?? gateway?.currency ?? 'usd';
    const kind = feeKind(req.body.provider ?? gateway?.provider ?? 'stripe', type);
    const cents = toCents(amount);
    const fee = feeCents(cents, kind, currency, feeSettingsOf(gateway));
    return { calculatedFee: amountOf(fee), amount: amountOf(cents), total: amountOf(cents + fee), currency, type: kind };
  });

  app.post(`${base}/captcha-verify`, { config: { access: 'public' }, schema: { body: CaptchaBody, response: { 200: CaptchaAnswer } } }, async (req) => {
    const deps = givingDeps(app);
    const result = await deps.providers.captcha.verify(req.body.token, req.ip);
    if (!result.success) return { success: false, errors: result.errors };
    return { success: true, verificationToken: issuePass(deps.config.ENCRYPTION_KEY, Date.now()), errors: [] };
  });
}
