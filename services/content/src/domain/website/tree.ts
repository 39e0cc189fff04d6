import type { z } from 'zod';
import { REMOTE, assertReferences, badRequest, findRow, getRow, notFound, saveRows, type Actor, type Db, type DbOrTx } from '@church/common';
import { blocks, pages, sections } from '../../db/website';
import {
  clearSections,
  countElements,
  insertSections,
  loadRenderedSections,
  loadSections,
  nextSectionSort,
  pageByUrl,
  renumberSections,
  stripIds,
  toInput,
  type Owner,
} from '../../repos/website/tree';
import type { PageSave, SectionTreeBody, TreeQuery, TreeSectionInput } from '../../schemas/website';
import type { KeptRead } from '../../lib/kept';
import { pageGate } from '../../repos/website/pages';
import type { ContentDeps } from '../../deps';
import { checkNested } from '../references';
import { editsContent, satisfiesGate } from './visibility';
import type { SiteId } from '../../repos/website/sites';
import { setPublished } from '../../repos/website/drafts';
import { insertPage, updatePage } from '../../repos/website/pages';
import { treeWithJsonText } from './json-text';

export const MAX_SECTIONS = 30;
export const MAX_ELEMENTS = 500;

/** Page urls are kept as paths: trimmed, lower case, one leading slash, no trailing slash (`/` itself stays). */
export function normalizeUrl(url: string): string {
  let u = url.trim().toLowerCase().replace(/\/{2,}/g, '/');
  if (!u.startsWith('/')) u = `/${u}`;
  if (u.length > 1) u = u.replace(/\/+$/, '');
  return u;
}

/** Refuses trees over the import limits with a 400 naming the limit. */
export function checkLimits(list: TreeSectionInput[]): void {
  if (list.length > MAX_SECTIONS) throw badRequest('sections', `at most ${MAX_SECTIONS} sections`);
  if (countElements(list) > MAX_ELEMENTS) throw badRequest('elements', `at most ${MAX_ELEMENTS} elements`);
}

type PageRow = typeof pages.$inferSelect;

/** 400 naming `url` when another page of the same site of the church has it. */
export async function checkUrlFree(db: DbOrTx, churchId: string, url: string, siteId: SiteId, exceptId?: string): Promise<void> {
  const other = await pageByUrl(db, churchId, url, siteId);
  if (other && other.id !== exceptId) throw badRequest('url', `another page already uses ${url}`);
}

/** A free url of the site for a copy: `/about-copy`, then `/about-copy-2` ... */
export async function copyUrl(db: DbOrTx, churchId: string, url: string, siteId: SiteId): Promise<string> {
  const base = `${url === '/' ? '/home' : url}-copy`;
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await pageByUrl(db, churchId, candidate, siteId))) return candidate;
  }
}

/**
 * The page with its rendered sections and the settings' JSON text. By url (`strip`, the public site) ids are
 * stripped and a block's sections stand in place of the section pointing at it; by id (the editor) the
 * pointing section keeps them under `sections`.
 */
export async function pageTree(db: DbOrTx, page: PageRow, strip = false) {
  const tree = { ...pageAnswer(page), sections: await loadRenderedSections(db, page.churchId, { pageId: page.id }, !strip) };
  return strip ? treeWithJsonText(stripIds(tree), true) : treeWithJsonText(tree);
}

export async function blockTree(db: DbOrTx, block: typeof blocks.$inferSelect) {
  const { createdAt: _c, updatedAt: _u, ...fields } = block;
  return treeWithJsonText({ ...fields, sections: await loadRenderedSections(db, block.churchId, { blockId: block.id }, true) });
}

export function pageFields(page: PageRow) {
  const { createdAt: _c, updatedAt: _u, published: _p, ...fields } = page;
  return fields;
}

/** A page as the API answers it: `groupIds` as the JSON text the apps' page settings read (null when none). */
export function pageAnswer(page: PageRow) {
  const { groupIds, ...fields } = pageFields(page);
  return { ...fields, groupIds: groupIds.length ? JSON.stringify(groupIds) : null };
}

/** Creates a page with its whole tree in one transaction (import and the AI page). */
export async function createPageWithTree(db: Db, churchId: string, input: Omit<PageRow, 'id' | 'churchId' | 'createdAt' | 'updatedAt' | 'published' | 'publishedAt'>, tree: TreeSectionInput[]) {
  checkLimits(tree);
  return db.transaction(async (tx) => {
    await checkUrlFree(tx, churchId, input.url, input.siteId);
    const page = await insertPage(tx, churchId, input);
    await insertSections(tx, churchId, { pageId: page.id }, tree);
    return pageTree(tx, page);
  });
}

/** Replaces a page's content (and the fields given) with a tree, in one transaction. */
export async function replacePageTree(db: Db, churchId: string, pageId: string, fields: Partial<PageRow>, tree: TreeSectionInput[]) {
  checkLimits(tree);
  return db.transaction(async (tx) => {
    const current = (await getRow(tx, pages, churchId, pageId, 'Page')) as PageRow;
    if (fields.url) await checkUrlFree(tx, churchId, fields.url, fields.siteId === undefined ? current.siteId : fields.siteId, pageId);
    const page = Object.keys(fields).length ? await updatePage(tx, churchId, pageId, { ...fields, updatedAt: new Date() }) : current;
    await clearSections(tx, churchId, { pageId });
    await insertSections(tx, churchId, { pageId }, tree);
    return pageTree(tx, page!);
  });
}

/** Copies a page with its sections and elements under a free url, in one transaction. */
export async function duplicatePage(db: Db, churchId: string, pageId: string) {
  return db.transaction(async (tx) => {
    const page = (await getRow(tx, pages, churchId, pageId, 'Page')) as PageRow;
    const tree = toInput(await loadSections(tx, churchId, { pageId }));
    const url = await copyUrl(tx, churchId, page.url, page.siteId);
    const { id: _id, churchId: _church, ...fields } = pageFields(page);
    const copy = await insertPage(tx, churchId, { ...fields, publishedAt: null, url, title: page.title ? `${page.title} (copy)` : page.title, name: page.name ? `${page.name} (copy)` : page.name });
    await insertSections(tx, churchId, { pageId: copy.id }, tree);
    return pageTree(tx, copy);
  });
}

/** The owner (page or block) of a snapshot request; 400 when neither or both are given, 404 when not the church's. */
export async function ownerOf(db: DbOrTx, churchId: string, ids: { pageId?: string | null; blockId?: string | null }): Promise<Owner> {
  if (ids.pageId && ids.blockId) throw badRequest('blockId', 'give pageId or blockId, not both');
  if (ids.pageId) {
    await getRow(db, pages, churchId, ids.pageId, 'Page');
    return { pageId: ids.pageId };
  }
  if (ids.blockId) {
    await getRow(db, blocks, churchId, ids.blockId, 'Block');
    return { blockId: ids.blockId };
  }
  throw badRequest('pageId', 'pageId or blockId is required');
}

/** The current tree of a page or block as a snapshot (its own fields and its sections, without ids). */
export async function takeSnapshot(db: DbOrTx, churchId: string, owner: Owner): Promise<Record<string, unknown>> {
  const sectionsOf = toInput(await loadSections(db, churchId, owner));
  if (owner.pageId) {
    const page = (await getRow(db, pages, churchId, owner.pageId, 'Page')) as PageRow;
    const { id: _i, churchId: _c, ...fields } = pageFields(page);
    return { page: fields, sections: sectionsOf };
  }
  const block = await getRow(db, blocks, churchId, owner.blockId!, 'Block');
  return { block: { name: block.name, blockType: block.blockType }, sections: sectionsOf };
}

/** Deletes the owner's current content and recreates it from a snapshot (one transaction by the caller). */
export async function restoreTree(tx: DbOrTx, churchId: string, owner: Owner, snapshot: { sections: TreeSectionInput[]; page?: unknown }): Promise<void> {
  checkLimits(snapshot.sections);
  const page = snapshot.page as Partial<PageRow> | undefined;
  if (owner.pageId && page && typeof page === 'object') {
    const fields: Partial<PageRow> = {};
    for (const key of ['name', 'title', 'metaDescription', 'layout'] as const) if (typeof page[key] === 'string') fields[key] = page[key];
    if (Object.keys(fields).length) await updatePage(tx, churchId, owner.pageId, fields);
  }
  await clearSections(tx, churchId, owner);
  await insertSections(tx, churchId, owner, snapshot.sections);
}

export function sectionOwner(section: Pick<typeof sections.$inferSelect, 'pageId' | 'blockId'>): Owner | undefined {
  if (section.pageId) return { pageId: section.pageId };
  if (section.blockId) return { blockId: section.blockId };
  return undefined;
}

/** Publishes a page's working tree: the public tree as it is now, and a snapshot to discard back to. */
export async function publishPage(tx: DbOrTx, churchId: string, pageId: string): Promise<Date> {
  const page = (await getRow(tx, pages, churchId, pageId, 'Page')) as PageRow;
  const tree = await pageTree(tx, page, true);
  const snapshot = await takeSnapshot(tx, churchId, { pageId });
  const publishedAt = new Date();
  await setPublished(tx, churchId, pageId, { tree, snapshot }, publishedAt);
  return publishedAt;
}

/** What a page names: the groups of its `groups` gate. (Its `siteId`, a membership site, no module answers yet.) */
export const PAGE_REFERENCES = { groupIds: REMOTE.groups, siteId: REMOTE.sites };

/** A whole page sent as a tree: its gate's groups, and the blocks its sections point at, are the church's. */
export async function checkPageTree(deps: Pick<ContentDeps, 'db' | 'internal'>, churchId: string, body: { groupIds?: string[]; sections: TreeSectionInput[] }): Promise<void> {
  await assertReferences(deps, churchId, [body], PAGE_REFERENCES, (_i, field) => field);
  await checkNested(deps, churchId, body.sections, { targetBlockId: blocks }, 'sections');
}

/**
 * Saves a batch of pages (`param(i, field)` names a field of item `i`) in one transaction: a new page needs a
 * url, urls are kept normalized and unique within their site (the one given, else the page's own), and a
 * `groups` gate names groups of the church (asked of membership before the transaction).
 */
export async function savePages(deps: Pick<ContentDeps, 'db' | 'internal'>, churchId: string, body: Array<z.output<typeof PageSave>>, param: (i: number, field: string) => string) {
  const items = body.map((item, i) => {
    if (!item.id && !item.url) throw badRequest(param(i, 'url'), 'is required');
    return { ...item, url: item.url ? normalizeUrl(item.url) : undefined };
  });
  await assertReferences(deps, churchId, items, PAGE_REFERENCES, param);
  return deps.db.transaction(async (tx) => {
    const claimed = new Set<string>();
    for (const [i, item] of items.entries()) {
      if (!item.url) continue;
      const old = item.id ? await findRow(tx, pages, churchId, item.id) : undefined;
      const siteId = item.siteId === undefined ? (old?.siteId ?? null) : item.siteId;
      const key = `${siteId ?? ''}\n${item.url}`;
      if (claimed.has(key)) throw badRequest(param(i, 'url'), `${item.url} is given twice`);
      claimed.add(key);
      await checkUrlFree(tx, churchId, item.url, siteId, item.id).catch(() => {
        throw badRequest(param(i, 'url'), `another page already uses ${item.url}`);
      });
    }
    return (await saveRows(tx, pages, churchId, items)).map(pageAnswer);
  });
}

/**
 * A section and its whole element tree in one call (B1Admin's section templates, layout switch and AI rewrite),
 * of a page or block of the church: placed by its `sort` (a fraction puts it between two), then the zone is
 * renumbered. The blocks it points at are the church's (`section.targetBlockId`), checked before the transaction.
 */
export async function insertSectionTree(deps: Pick<ContentDeps, 'db' | 'internal'>, churchId: string, section: z.output<typeof SectionTreeBody>['section']) {
  const { pageId, blockId, ...input } = section;
  checkLimits([input]);
  await checkNested(deps, churchId, [section], { targetBlockId: blocks }, (_i, field) => `section.${field}`);
  return deps.db.transaction(async (tx) => {
    const owner = await ownerOf(tx, churchId, { pageId, blockId });
    const sort = input.sort ?? (await nextSectionSort(tx, churchId, owner, input.zone ?? 'main'));
    // insertSections numbers from startSort + 1: the section lands exactly on `sort`
    const [newId] = await insertSections(tx, churchId, owner, [{ ...input, sort }], sort - 1);
    await renumberSections(tx, churchId, owner);
    const [created] = (await loadSections(tx, churchId, owner)).filter((s) => s.id === newId);
    return treeWithJsonText(created);
  });
}

/**
 * A page's tree as the public site (by url, or by id) and the editor (by id, with its token) read it, kept per
 * church and data version: the gate is read from a small kept value, the tree itself is kept whole. Only the
 * church's website editors reading by id get the working draft with its ids; anyone else gets what is published
 * (before a page is first published its working tree is live), without ids. A url no page has answers `{}` (B1App
 * then shows its built-in pages); an id, 404; a gate that does not let the caller in, `{restricted, visibility}`.
 */
export async function publicTree(deps: Pick<ContentDeps, 'db' | 'internal' | 'snapshots'>, actor: Actor | null, churchId: string, query: z.output<typeof TreeQuery>): Promise<KeptRead> {
  const { url, id, siteId } = query;
  if (!url && !id) throw badRequest('url', 'url or id is required', 'query');
  const draft = !url && actor !== null && actor.churchId.toLowerCase() === churchId.toLowerCase() && editsContent(actor);
  // By url, the page of the site asked for (the main site when none is); by id, whichever site it is of.
  const variant = url ? `url\n${siteId ?? ''}\n${normalizeUrl(url)}` : `${draft ? 'draft' : 'id'}\n${id}`;
  // One version read serves the gate and the body.
  const version = await deps.snapshots.version(churchId);
  const gate = await deps.snapshots.value(
    `page-gate\n${churchId}\n${url ? variant : `id\n${id}`}`,
    version,
    () => pageGate(deps.db, churchId, url ? { url: normalizeUrl(url), siteId } : { id: id! }),
    () => 200,
  );
  if (!gate) {
    if (url) return { answer: {} };
    throw notFound('Page');
  }
  if (!(await satisfiesGate(deps, churchId, gate, actor))) return { answer: { restricted: true, visibility: gate.visibility } };
  const build = async () => {
    const page = await getRow(deps.db, pages, churchId, gate.id, 'Page');
    return draft ? pageTree(deps.db, page) : page.published ? page.published.tree : pageTree(deps.db, page, true);
  };
  return { kept: { variant, version, build } };
}
