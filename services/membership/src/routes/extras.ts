import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission, requires } from '@church/auth';
import { IdParams, badRequest, crud, unauthorized, type ZodTypeProvider } from '@church/common';
import { associatedGroups, groups, householdPickups, households, people, sites } from '../db/schema';
import { membershipDeps } from '../deps';
import { jobsHealth, serverHealth } from '../domain/server-health';
import { associationsOf, clearSiteOfDomains, householdOfPerson, pickupsOf, subDomainTaken } from '../repos/extras';
import { AssociatedGroup, AssociatedGroupSave, ContentParams, JobsAnswer, Pickup, PickupSave, ServerHealth, Site, SiteSave } from '../schemas/extras';

const toPickup = (r: typeof householdPickups.$inferSelect) => ({ ...r, createdDate: r.createdAt });

/**
 * The smaller resources B1Admin manages: who may collect a household's children, groups tied to another module's
 * records (plan type teams), a church's additional websites, and the server health screens of server admins.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = membershipDeps(app);

  // --- household pickup (People.Edit writes; staff, and the household's own people, read) ---
  crud(app, {
    path: '/membership/householdpickup',
    name: 'Pickup person',
    table: householdPickups,
    item: Pickup,
    save: PickupSave,
    view: requires('People.View'),
    edit: requires('People.Edit'),
    only: ['save', 'delete'],
    references: { householdId: households, personId: people },
    requiredOnCreate: ['householdId'],
    toItem: toPickup,
    changes: { entityType: 'householdPickup' },
  });
  // The id is a household's (named `id` like the delete's: one path shape for both).
  app.get('/membership/householdpickup/:id', { config: { access: anyUser }, schema: { summary: 'Who may collect a household’s children', params: IdParams, response: { 200: z.array(Pickup) } } }, async (req) => {
    const { churchId, personId } = req.auth;
    const householdId = req.params.id;
    // Who may collect a child, and who may not, is for staff and the family: a custody note is not a member's business.
    const staff = hasPermission(req.auth, 'People.View') || hasPermission(req.auth, 'People.Edit');
    if (!staff && !(personId && (await householdOfPerson(app.db, churchId, personId)) === householdId)) throw unauthorized('Missing permission: People.View');
    return (await pickupsOf(app.db, churchId, householdId)).map(toPickup);
  });

  // --- associated groups (Plans.Edit writes; any signed-in person of the church reads) ---
  crud(app, {
    path: '/membership/associatedGroups',
    name: 'Associated group',
    table: associatedGroups,
    item: AssociatedGroup,
    save: AssociatedGroupSave,
    view: anyUser,
    edit: requires('Plans.Edit'),
    only: ['save', 'delete'],
    references: { groupId: groups },
    requiredOnCreate: ['contentType', 'contentId', 'groupId'],
    changes: { entityType: 'associatedGroup' },
  });
  app.get('/membership/associatedGroups/content/:contentType/:contentId', { config: { access: anyUser }, schema: { summary: 'The groups tied to a record of another module', params: ContentParams, response: { 200: z.array(AssociatedGroup) } } }, (req) =>
    associationsOf(app.db, req.auth.churchId, req.params),
  );
  app.get(
    '/membership/associatedGroups/group/:groupId',
    { config: { access: anyUser }, schema: { params: z.object({ groupId: z.uuid() }), summary: 'The records a group is tied to', querystring: z.object({ contentType: z.string().max(50).optional() }), response: { 200: z.array(AssociatedGroup) } } },
    (req) => associationsOf(app.db, req.auth.churchId, { groupId: req.params.groupId, contentType: req.query.contentType }),
  );

  // --- sites (Settings.Edit writes; sub-domains share one namespace with churches') ---
  crud(app, {
    path: '/membership/sites',
    name: 'Site',
    table: sites,
    item: Site,
    save: SiteSave,
    view: anyUser,
    edit: requires('Settings.Edit'),
    only: ['list', 'save', 'delete'],
    orderBy: sites.name,
    toRow: async (item) => {
      if (await subDomainTaken(app.db, item.subDomain, item.id)) throw badRequest('subDomain', 'This sub-domain is taken');
      return item;
    },
    beforeDelete: async (row, req, tx) => clearSiteOfDomains(tx, req.auth.churchId, row.id),
    changes: { entityType: 'site' },
  });

  // --- server health (server admins only) ---
  app.get('/membership/serverHealth', { config: { access: requires('Server.Admin') }, schema: { summary: 'Which settings of the server are configured', response: { 200: ServerHealth } } }, async () =>
    serverHealth(deps.config),
  );

  app.get('/membership/serverHealth/jobs', { config: { access: requires('Server.Admin') }, schema: { summary: 'Membership’s background jobs: latest runs and failures', response: { 200: JobsAnswer } } }, () =>
    jobsHealth(deps),
  );
}
