import type { FastifyInstance } from 'fastify';
import { hasPermission, isMember, isServerAdmin, type Claims } from '@church/auth';
import { notFound } from '@church/common';
import { pageDraftFacts } from '../../repos/website/drafts';
import { personGroupIds } from './membership';

/**
 * Who may see a gated page or link (`everyone`, `visitors`, `members`, `staff`, `groups`). Visitors means any
 * signed-in person of the church; members, status Member or Staff; staff, status Staff; groups, a member or
 * leader of one of the listed groups. Website editors (Content.Edit) see everything of their church.
 */
export async function satisfiesGate(
  app: FastifyInstance,
  churchId: string,
  gate: { visibility: string; groupIds: string[] },
  auth: Claims | null | undefined,
  groupsOf: (personId: string) => Promise<string[]> = (personId) => personGroupIds(app, churchId, personId),
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
export function groupsMemo(app: FastifyInstance, churchId: string): (personId: string) => Promise<string[]> {
  let pending: Promise<string[]> | undefined;
  return (personId) => (pending ??= personGroupIds(app, churchId, personId));
}

/** Whether the caller edits the church's website (and so reads every row, gated or not yet published). */
export const editsContent = (auth: Claims): boolean => isServerAdmin(auth) || hasPermission(auth, 'Content.Edit', 'ContentApi');

/**
 * The rows (pages, links) the caller may see by their gates: signed-in reads must not show a guest the titles of
 * staff-only or group pages. Membership is asked at most once for the caller's groups.
 */
export async function seenRows<T extends { visibility: string; groupIds: string[] }>(app: FastifyInstance, auth: Claims, rows: T[]): Promise<T[]> {
  if (editsContent(auth)) return rows;
  const groupsOf = groupsMemo(app, auth.churchId);
  const seen = await Promise.all(rows.map((r) => satisfiesGate(app, auth.churchId, r, auth, groupsOf)));
  return rows.filter((_, i) => seen[i]);
}

/**
 * 404 unless the caller may see the page a section or element belongs to (block content is not gated). The rows
 * of a page that has a published version are its working draft: only the church's website editors read them
 * (everyone else reads the published page through its tree, as `GET /pages/:churchId/tree` serves it); a page
 * never published serves its working rows, as its public tree does.
 */
export async function assertPageSeen(app: FastifyInstance, auth: Claims, pageId: string | null | undefined): Promise<void> {
  if (!pageId || editsContent(auth)) return;
  const page = await pageDraftFacts(app.db, auth.churchId, pageId);
  if (page && (page.publishedAt !== null || !(await satisfiesGate(app, auth.churchId, page, auth)))) throw notFound('Page');
}
