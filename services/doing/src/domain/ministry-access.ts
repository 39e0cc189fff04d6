import { and, eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { hasPermission, rule } from '@church/auth';
import { notFound, unauthorized, type DbOrTx, type InternalClient } from '@church/common';
import { plans } from '../db/schema';
import { membershipClient } from '../clients/membership';

/**
 * Who may manage a ministry's serving (templates, the range notice): holders of `Plans.Edit`, and the people on
 * the ministry's own team (members of the ministry's group), as B1Admin shows its serving screens to both. The
 * route declares this rule; the handler narrows it to the ministry concerned with `ministryAccess`.
 */
export const ministryEditor = rule('Plans.Edit or member of the ministry', (_req, auth) => hasPermission(auth, 'Plans.Edit') || !!auth.personId);

const refused = () => unauthorized('Only holders of Plans.Edit and members of the ministry can do this');

/**
 * The caller's right over ministries, for one request: `Plans.Edit` covers every ministry; otherwise the caller's
 * groups are asked of membership once (a 502 when it is away) and a ministry outside them is a 401.
 */
export function ministryAccess(internal: InternalClient, req: FastifyRequest) {
  const auth = req.auth;
  const everywhere = hasPermission(auth, 'Plans.Edit');
  let groups: Promise<Set<string>> | undefined;
  const myGroups = () =>
    (groups ??= auth.personId ? membershipClient(internal).peopleFacts(auth.churchId, [auth.personId]).then(([me]) => new Set(me?.groupIds ?? [])) : Promise.resolve(new Set<string>()));
  const ministry = async (ministryId: string | null | undefined): Promise<void> => {
    if (everywhere) return;
    if (!ministryId || !(await myGroups()).has(ministryId)) throw refused();
  };
  return {
    ministry,
    /** the plan of the caller's church (404 otherwise), once the caller may edit its ministry */
    async plan(db: DbOrTx, planId: string) {
      const [plan] = await db.select().from(plans).where(and(eq(plans.churchId, auth.churchId), eq(plans.id, planId))).limit(1);
      if (!plan) throw notFound('Plan');
      await ministry(plan.ministryId);
      return plan;
    },
  };
}
