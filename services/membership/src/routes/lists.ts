import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { IdParams, actorOf, crud, notFound, type ZodTypeProvider } from '@church/common';
import { savedLists } from '../db/schema';
import { listFilter, resolveLists, ruleSource, versionedRules } from '../domain/list-rules';
import { PersonRecords, viewerOf } from '../domain/people/person';
import { listsVisible, visibleTo, type SavedListRow } from '../repos/lists';
import { peopleIdsWhere, peopleWhere, type PeopleFilter } from '../repos/people';
import { personRecords } from './people/records';
import { PreviewBody, SavedList, SavedListSave, type RuleGroup } from '../schemas/lists';

const BASE = '/membership/lists';
const toList = (r: { list: SavedListRow; createdByPersonName: string | null }) => ({ ...r.list, createdByPersonName: r.createdByPersonName });

/**
 * Saved people lists (B1Admin's people page): a named search kept with the screen's own filter state and a rules
 * tree the server evaluates (`GET /lists/:id/people`), shared with the church's staff or private to its maker.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const me = (req: FastifyRequest) => req.auth.personId ?? null;

  const records = personRecords(app);

  /**
   * The people `where` finds as JSON: their ids by name from PostgreSQL (one narrow statement), each record's
   * text from the church's kept person records (routes/people/records.ts) instead of reading, decoding and
   * serializing thousands of whole rows per request.
   */
  const peopleJson = (churchId: string, where: PeopleFilter) =>
    records.jsonByIds(
      churchId,
      () => peopleIdsWhere(app.db, where),
      () => peopleWhere(app.db, where),
    );
  const sendJson = (reply: FastifyReply, body: Buffer) => reply.type('application/json; charset=utf-8').send(body);

  // Saves and deletes through crud  // Saves and deletes through crud: only lists the caller may see (another's private list is a 404), new ones theirs.
  crud(app, {
    path: BASE,
    name: 'List',
    table: savedLists,
    item: SavedList,
    save: SavedListSave,
    view: requires('People.View'),
    edit: requires('People.Edit'),
    only: ['save', 'delete'],
    scope: { where: (req) => visibleTo(me(req)) },
    toRow: (item, req) => ({
      ...item,
      conditions: item.conditions ?? null,
      householdInclusion: item.householdInclusion ?? undefined,
      ...(item.id ? {} : { createdByPersonId: me(req) }),
    }),
    toItem: (row) => ({ ...row, createdByPersonName: null }),
    // The saved rules, with the lists they refer to as saved now (this batch included), keep to the same bounds.
    afterSave: async (rows, req, tx) => {
      for (const [i, row] of rows.entries()) if (row.rules) await resolveLists(row.rules as RuleGroup, ruleSource(tx, req.auth), `[${i}].rules`, row.id);
    },
    changes: { entityType: 'list' },
  });

  app.get(BASE, { config: { access: requires('People.View') }, schema: { summary: 'The saved lists the caller may see', response: { 200: z.array(SavedList) } } }, async (req) =>
    (await listsVisible(app.db, req.auth.churchId, me(req))).map(toList),
  );

  app.get(`${BASE}/:id`, { config: { access: requires('People.View') }, schema: { summary: 'Read one saved list', params: IdParams, response: { 200: SavedList } } }, async (req) => {
    const [row] = await listsVisible(app.db, req.auth.churchId, me(req), req.params.id);
    if (!row) throw notFound('List');
    return toList(row);
  });

  // A list whose rules read only what the church's data version covers (people, groups, group members) is
  // answered from a kept body: per version, viewer scope, day (ages), household inclusion and the rules (its own
  // and those of the lists it refers to, as saved now); a repeat is a version lookup and a send (304 with
  // If-None-Match). Rules about custom fields, form answers, attendance or giving are evaluated on every request.
  app.get(`${BASE}/:id/people`, { config: { access: requires('People.View') }, schema: { summary: 'The people a saved list finds now', params: IdParams, response: { 200: PersonRecords } } }, async (req, reply) => {
    const { churchId } = req.auth;
    const [row] = await listsVisible(app.db, churchId, me(req), req.params.id);
    if (!row) throw notFound('List');
    const rules = (row.list.rules as RuleGroup | null) ?? { match: 'all' as const, conditions: [] };
    const inclusion = row.list.householdInclusion;
    const { lists, where } = await listFilter(app.deps, actorOf(req), rules, inclusion);
    if (!versionedRules(rules, lists)) return sendJson(reply, await peopleJson(churchId, where));
    const viewer = viewerOf(req.auth);
    const variant = JSON.stringify([viewer.membersOnly ? 'members' : 'all', new Date().toISOString().slice(0, 10), inclusion ?? 'none', rules, [...lists]]);
    // the version is read before the people, so the body kept under it is at least as new
    const version = await app.deps.snapshots.version(churchId);
    return app.deps.snapshots.sendAt(req, reply, churchId, variant, version, async () => (await peopleJson(churchId, where)).toString('utf8'));
  });

  // The people a rules tree would find, before it is saved.
  app.post(`${BASE}/preview`, { config: { access: requires('People.View') }, schema: { summary: 'The people a list’s rules would find', body: PreviewBody, response: { 200: PersonRecords } } }, async (req, reply) => {
    const { where } = await listFilter(app.deps, actorOf(req), req.body.rules, req.body.householdInclusion);
    return sendJson(reply, await peopleJson(req.auth.churchId, where));
  });
}
