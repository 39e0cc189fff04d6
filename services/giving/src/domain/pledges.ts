import type { z } from 'zod';
import { badRequest, notFound, reportChanges, type Actor, type Tx } from '@church/common';
import { knownPeople } from '../clients/membership';
import type { GivingDeps } from '../deps';
import { toCents } from '../lib/money';
import type { ItemParam } from '../lib/params';
import { campaignRows, campaignsByIds, hasEnded } from '../repos/campaigns';
import { updatePledge, upsertPledge } from '../repos/pledges';
import type { MyPledgeSave, PledgeSave } from '../schemas';

type PledgeDeps = Pick<GivingDeps, 'db' | 'queue' | 'module'>;
type Change = Awaited<ReturnType<typeof upsertPledge>>;

/** Reports pledges made or changed, in their transaction. */
const report = (deps: PledgeDeps, actor: Actor, tx: Tx, changes: Change[]) =>
  reportChanges(
    deps,
    changes.map(({ before, after }) => ({ churchId: actor.churchId, entityType: 'pledge', entityId: after.id, action: before ? 'updated' : 'created', before, after })),
    { req: actor, tx },
  );

/** `GET /pledges/my`: the caller's own pledges with their campaigns and what they gave; none without a person. */
export async function myPledges(deps: Pick<GivingDeps, 'db'>, actor: Actor) {
  const personId = actor.personId;
  if (!personId) return [];
  const mine = await campaignRows(deps.db, actor.churchId, { personId, pledgedOnly: true });
  return mine.flatMap(({ campaign, rows }) =>
    rows.map((r) => ({ pledge: { id: r.pledgeId!, campaignId: campaign.id, personId, amount: r.pledgedAmount }, campaign, givenAmount: r.givenAmount, status: r.status })),
  );
}

/**
 * `POST /pledges/my`: the caller pledges as themselves (a second pledge changes the first), to a campaign of the
 * church that takes members' pledges and has not ended.
 */
export async function pledgeAsMember(deps: PledgeDeps, actor: Actor, body: z.output<typeof MyPledgeSave>) {
  const churchId = actor.churchId;
  const personId = actor.personId!;
  const [campaign] = await campaignsByIds(deps.db, churchId, [body.campaignId]);
  if (!campaign) throw badRequest('campaignId', 'is not a campaign of this church');
  if (!campaign.allowSelfPledge) throw badRequest('campaignId', 'does not take pledges from members');
  if (hasEnded(campaign)) throw badRequest('campaignId', 'has ended');
  return deps.db.transaction(async (tx) => {
    const change = await upsertPledge(tx, churchId, { campaignId: campaign.id, personId, cents: toCents(body.amount) });
    await report(deps, actor, tx, [change]);
    return change.after;
  });
}

/**
 * `POST /pledges`: pledges entered or changed (one per person and campaign) in one transaction. A new one names
 * its campaign, person and amount; the campaigns are the church's and the people membership's people of the
 * church, checked before the transaction. Answers the rows in input order.
 */
export async function savePledges(deps: PledgeDeps & Pick<GivingDeps, 'internal'>, actor: Actor, body: Array<z.output<typeof PledgeSave>>, at: ItemParam) {
  const churchId = actor.churchId;
  const items = body.map((it) => ({ ...it, id: it.id?.toLowerCase(), campaignId: it.campaignId?.toLowerCase(), personId: it.personId?.toLowerCase() }));
  items.forEach((it, i) => {
    if (it.id) return;
    for (const field of ['campaignId', 'personId', 'amount'] as const) if (it[field] === undefined) throw badRequest(at(i, field), 'is required');
  });
  const campaignIds = [...new Set(items.map((it) => it.campaignId).filter((v): v is string => !!v))];
  const known = new Set((await campaignsByIds(deps.db, churchId, campaignIds)).map((c) => c.id));
  items.forEach((it, i) => {
    if (it.campaignId && !known.has(it.campaignId)) throw badRequest(at(i, 'campaignId'), 'is not a campaign of this church');
  });
  // A pledge is a person of the church's (membership answers only its own church's people).
  const people = await knownPeople(deps.internal, churchId, items.map((it) => it.personId).filter((v): v is string => !!v));
  items.forEach((it, i) => {
    if (it.personId && !people.has(it.personId)) throw badRequest(at(i, 'personId'), 'is not a person of this church');
  });
  return deps.db.transaction(async (tx) => {
    const changes: Change[] = [];
    for (const it of items) {
      const cents = it.amount === undefined ? undefined : toCents(it.amount);
      if (it.id) {
        const changed = await updatePledge(tx, churchId, it.id, { campaignId: it.campaignId, personId: it.personId, cents });
        if (!changed) throw notFound('Pledge');
        changes.push(changed);
      } else changes.push(await upsertPledge(tx, churchId, { campaignId: it.campaignId!, personId: it.personId!, cents: cents! }));
    }
    await report(deps, actor, tx, changes);
    return changes.map((c) => c.after);
  });
}
