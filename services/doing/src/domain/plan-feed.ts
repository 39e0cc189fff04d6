import type { VenueFeed } from '../providers/lessons-church';
import type { PlanItemNode } from '../schemas';

/**
 * A lesson venue's feed as plan items for the presenter: each section a `header` with its actions as
 * children (`lessonAction`, the action's type in `relatedId`... its text as the label), sorted as the feed
 * lists them. The items are not stored: the feed stays the source until the plan gets items of its own.
 */
export function feedItems(churchId: string, planId: string, venue: VenueFeed): PlanItemNode[] {
  const blank = { churchId, planId, relatedId: null, description: null, link: null, providerId: 'lessonschurch', providerPath: null, providerContentPath: null, thumbnailUrl: null };
  return (venue.sections ?? []).map((section, si) => {
    const id = `feed-${si}`;
    return {
      ...blank,
      id,
      parentId: null,
      sort: si + 1,
      itemType: 'header',
      label: section.name ?? '',
      seconds: (section.actions ?? []).reduce((s, a) => s + (a.seconds ?? 0), 0) || null,
      children: (section.actions ?? []).map((action, ai) => ({
        ...blank,
        id: `feed-${si}-${ai}`,
        parentId: id,
        sort: ai + 1,
        itemType: 'lessonAction',
        relatedId: action.id ?? null,
        label: action.actionType ?? null,
        description: action.content ?? null,
        seconds: action.seconds ?? null,
        link: action.files?.[0]?.url ?? null,
        thumbnailUrl: action.files?.[0]?.thumbnail ?? null,
        children: [],
      })),
    };
  });
}
