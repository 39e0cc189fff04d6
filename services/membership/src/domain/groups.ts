import { badRequest, isUuid, notFound, saveRows, type ChangeInput, type Db, type DbOrTx, type Tx } from '@church/common';
import { groups } from '../db/schema';
import { findGroup, slugsLike, type GroupRecord, type GroupRow } from '../repos/groups';
import { report as reportTo, type Reporter } from './report';

/** Group kinds (NOTES.md): a `team` belongs to a `ministry` group through `parentGroupId`. */
export const GROUP_TAGS = ['standard', 'ministry', 'team'] as const;
/** Who may join a group on their own (`groupmembers/self`); `closed`, the default, means staff add people. */
export const JOIN_POLICIES = ['open', 'request', 'closed'] as const;

export interface GroupInput {
  id?: string;
  name?: string;
  tags?: string[];
  labels?: string[];
  /** the apps' label editor: when sent, it is the group's labels (it wins over `labels`) */
  labelArray?: string[];
  parentGroupId?: string | null;
  [column: string]: unknown;
}

/**
 * A group as every answer carries it: the spec's keys, with `tags` and `labels` as the comma-separated strings the
 * apps split, and `labelArray` (the labels as a list) that their group screens read. Built field by field in the
 * `Group` schema's order (the lists are written with JSON.stringify, see `exactShape`).
 */
export function toGroup(row: GroupRecord) {
  return {
    id: row.id,
    churchId: row.churchId,
    categoryName: row.categoryName,
    name: row.name,
    slug: row.slug,
    trackAttendance: row.trackAttendance,
    parentPickup: row.parentPickup,
    printNametag: row.printNametag,
    about: row.about,
    photoUrl: row.photoUrl,
    tags: row.tags.join(','),
    labels: row.labels.join(','),
    labelArray: row.labels,
    meetingTime: row.meetingTime,
    meetingLocation: row.meetingLocation,
    publicRoster: row.publicRoster,
    parentGroupId: row.parentGroupId,
    archived: row.archived,
    joinPolicy: row.joinPolicy,
  };
}

/** `Youth Ministry (2025)` → `youth-ministry-2025`; accents folded, at most 60 characters, never empty. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return slug || 'group';
}

/** The name's slug, or the first free `slug-2`, `slug-3`, ... of the church. */
export async function uniqueSlug(db: DbOrTx, churchId: string, name: string, exceptId?: string): Promise<string> {
  const base = slugify(name);
  const taken = await slugsLike(db, churchId, base, exceptId);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * Batch save of groups in one transaction: a new group needs a name; the slug follows the name (made on
 * insert and again when a save renames the group); a team must name a ministry group of the church as its
 * parent. Another church's id fails the whole batch with 404.
 */
export function saveGroups(db: Db, churchId: string, items: GroupInput[], report?: Reporter): Promise<GroupRow[]> {
  return db.transaction(async (tx) => {
    const out: GroupRow[] = [];
    const changes: ChangeInput[] = [];
    for (const item of items) {
      const existing = item.id ? await findGroup(tx, churchId, item.id) : undefined;
      if (item.id && !existing) throw notFound('Group');
      const name = item.name ?? existing?.name;
      if (!name) throw badRequest('name', 'name is required');
      const tags = item.tags ?? existing?.tags ?? ['standard'];
      const team = tags.includes('team');
      // The apps tie a team to its ministry by putting the ministry's id in `categoryName` (B1Admin's TeamList and
      // QuickSetupModal) and find a ministry's teams by it: a team's ministry is `parentGroupId`, else that id.
      const sentCategory = typeof item.categoryName === 'string' ? item.categoryName : undefined;
      const categoryName = item.categoryName === undefined ? existing?.categoryName : sentCategory;
      const byCategory = team && item.parentGroupId === undefined && sentCategory !== undefined && isUuid(sentCategory);
      const parentGroupId = byCategory ? sentCategory : item.parentGroupId !== undefined ? item.parentGroupId : (existing?.parentGroupId ?? null);
      if (team) await checkMinistry(tx, churchId, parentGroupId, item.id, byCategory ? 'categoryName' : 'parentGroupId');
      else if (item.parentGroupId) await checkParent(tx, churchId, item.parentGroupId, item.id);
      const { labelArray, ...fields } = item;
      const values: Record<string, unknown> = { ...fields, tags, parentGroupId, ...(labelArray ? { labels: labelArray } : {}) };
      // A team named the spec's way (`parentGroupId`) is listed under its ministry by the apps too.
      if (team && parentGroupId && (!categoryName || isUuid(categoryName))) values.categoryName = parentGroupId;
      if (!existing || existing.name !== name) values.slug = await uniqueSlug(tx, churchId, name, item.id);
      const [row] = await saveRows(tx, groups, churchId, [values]);
      out.push(row as GroupRow);
      const action = existing ? 'updated' : 'created';
      changes.push({ churchId, entityType: 'group', entityId: row!.id as string, action, event: `group.${action}`, before: existing, after: row as GroupRow, data: toGroup(row as GroupRow) });
    }
    await reportTo(report, tx, changes);
    return out;
  });
}

async function checkMinistry(db: Tx, churchId: string, parentGroupId: string | null, selfId: string | undefined, param: 'parentGroupId' | 'categoryName') {
  if (!parentGroupId) throw badRequest('parentGroupId', 'a team must reference its ministry group (parentGroupId, or its id as categoryName)');
  const parent = parentGroupId === selfId ? undefined : await findGroup(db, churchId, parentGroupId);
  if (!parent || !parent.tags.includes('ministry')) throw badRequest(param, `${param} must be a ministry group of this church`);
}

/** Any group's parent must be another live group of the same church (never another church's group). */
async function checkParent(db: Tx, churchId: string, parentGroupId: string, selfId?: string) {
  const parent = parentGroupId === selfId ? undefined : await findGroup(db, churchId, parentGroupId);
  if (!parent) throw badRequest('parentGroupId', 'parentGroupId must be another group of this church');
}
