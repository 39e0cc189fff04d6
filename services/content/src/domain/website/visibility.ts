import { hasPermission, isMember, isServerAdmin, type Claims } from '@church/auth';
import { notFound, type Actor } from '@church/common';
import { personGroupIds } from '../../clients/membership';
import type { ContentDeps } from '../../deps';
import { pageDraftFacts } from '../../repos/website/drafts';

/**
 * Who may see a gated page or link (`everyone`, `visitors`, `members`, `staff`, `groups`). Visitors means any
 * signed-in person of the church; members, status Member or Staff; staff, status Staff; groups, a member or
 * leader of one of the listed groups. Website editors (Content.Edit) see everything of their church.
 */
export async function satisfiesGate(
  deps: Pick<ContentDeps, 'internal'>,
  churchId: string,
  gate: { visibility: string; groupIds: string[] },
  auth: Actor | null,
  groupsOf: (personId: string) => Promise<string[]> = (personId) => personGroupIds(deps.internal, churchId, personId),
): Promise<boolean> {
  if (gate.visibility === 'everyone') return true;
  if (!auth || auth.churchId.toLowerCase() !== churchId.toLowerCase()) return false;
  if (isServerAdmin(auth) || hasPermission(auth, 'Content.Edit', 'ContentApi')) return true;
  switch (gate.visibility) {
    case 'visitors':
      return true;
    case 'members':
      return isMember(auth);
    case 'staff':
      return (auth.membershipStatus ?? '').toLowerCase() === 'staff';
    case 'groups': {
      if (!gate.groupIds.length) return false;
      if (auth.leaderGroupIds.some((g) => gate.groupIds.includes(g))) return true;
      if (!auth.personId) return false;
      const mine = await groupsOf(auth.personId);
      return mine.some((g) => gate.groupIds.includes(g));
    }
    default:
      return false;
  }
}

/** A memo of the caller's groups, so filtering many links asks membership once. */
export function groupsMemo(deps: Pick<ContentDeps, 'internal'>, churchId: string): (personId: string) => Promise<string[]> {
  let pending: Promise<string[]> | undefined;
  return (personId) => (pending ??= personGroupIds(deps.internal, churchId, personId));
}

/** Whether the caller edits the church's website (and so reads every row, gated or not yet published). */
export const editsContent = (auth: Claims): boolean => isServerAdmin(auth) || hasPermission(auth, 'Content.Edit', 'ContentApi');

/**
 * The rows (pages, links) the caller may see by their gates: signed-in reads must not show a guest the titles of
 * staff-only or group pages. Membership is asked at most once for the caller's groups.
 */
export async function seenRows<T extends { visibility: string; groupIds: string[] }>(deps: Pick<ContentDeps, 'internal'>, actor: Actor, rows: T[]): Promise<T[]> {
  if (editsContent(actor)) return rows;
  const groupsOf = groupsMemo(deps, actor.churchId);
  const seen = await Promise.all(rows.map((r) => satisfiesGate(deps, actor.churchId, r, actor, groupsOf)));
  return rows.filter((_, i) => seen[i]);
}

/**
 * 404 unless the caller may see the page a section or element belongs to (block content is not gated). The rows
 * of a page that has a published version are its working draft: only the church's website editors read them
 * (everyone else reads the published page through its tree, as `GET /pages/:churchId/tree` serves it); a page
 * never published serves its working rows, as its public tree does.
 */
export async function assertPageSeen(deps: Pick<ContentDeps, 'db' | 'internal'>, actor: Actor, pageId: string | null | undefined): Promise<void> {
  if (!pageId || editsContent(actor)) return;
  const page = await pageDraftFacts(deps.db, actor.churchId, pageId);
  if (page && (page.publishedAt !== null || !(await satisfiesGate(deps, actor.churchId, page, actor)))) throw notFound('Page');
}
