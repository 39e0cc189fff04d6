import { hasPermission } from '@church/auth';
import { notFound, unauthorized, type Actor, type DbOrTx, type ServiceDeps } from '@church/common';
import { membershipClient } from '../clients/membership';
import { planMinistries } from '../repos/refs';

/**
 * Who may change doing's records (issue 31: the spec gives every doing write to any signed-in user; a church expects
 * better). Two rules, both written in the README:
 * - a ministry's serving (its plan types, plans and everything of a plan, its templates, its content provider
 *   sign-ins, its range notice): holders of `Plans.Edit` everywhere, and the members of the ministry's own group for
 *   that ministry's records, as the open-source system and B1Admin's serving screens have it (`ministryEditor`);
 * - the church-wide staff work (automations, tasks, workflows and cards): `Plans.Edit` (`staffEditor`), the nearest
 *   permission of the reference to the open-source system's `Tasks.Admin` / `Tasks.Edit`, which ours lacks.
 * What stays open to every signed-in person: their own blockout dates, sign-ups, answers and scheduling preference.
 *
 * The rules as routes declare them are in routes/access.ts; here, what they decide with.
 */

/** The groups (ministries) the caller belongs to, asked of membership; none for a caller who is no person. */
export function callerGroups(deps: Pick<ServiceDeps, 'internal'>, caller: { churchId: string; personId: string | null }): Promise<Set<string>> {
  const { churchId, personId } = caller;
  return personId ? membershipClient(deps.internal).peopleFacts(churchId, [personId]).then(([me]) => new Set(me?.groupIds ?? [])) : Promise.resolve(new Set<string>());
}

const refused = () => unauthorized('Only holders of Plans.Edit and members of the ministry can do this');

/**
 * The caller's right over ministries: `Plans.Edit` covers every ministry; otherwise the caller's groups (`groups`,
 * asked of membership at most once per request by whoever builds the access; a 502 when it is away) and a ministry
 * outside them is a 401.
 */
export function ministryAccess(actor: Actor, groups: () => Promise<Set<string>>) {
  const everywhere = hasPermission(actor, 'Plans.Edit');
  const ministry = async (ministryId: string | null | undefined): Promise<void> => {
    if (everywhere) return;
    if (!ministryId || !(await groups()).has(ministryId)) throw refused();
  };
  return {
    ministry,
    /** the plan of the caller's church (404 otherwise), once the caller may edit its ministry */
    async plan(db: DbOrTx, planId: string) {
      const [plan] = await planMinistries(db, actor.churchId, [planId]);
      if (!plan) throw notFound('Plan');
      await ministry(plan.ministryId);
      return plan;
    },
  };
}
