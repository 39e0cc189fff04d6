import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { blocks, elements, pages, sections } from '../../db/website';
import type { TreeElementInput, TreeSectionInput } from '../../schemas/website';
import { ofSite, ofSiteOrMain, type SiteId } from './sites';

export type SectionRow = typeof sections.$inferSelect;
export type ElementRow = typeof elements.$inferSelect;
export type ElementNode = ElementRow & { elements: ElementNode[] };
export type SectionNode = SectionRow & { elements: ElementNode[] };
/** The owner of a section tree: a page or a block. */
export type Owner = { pageId: string; blockId?: undefined } | { blockId: string; pageId?: undefined };

const ownerWhere = (churchId: string, owner: Owner) =>
  and(eq(sections.churchId, churchId), owner.pageId ? eq(sections.pageId, owner.pageId) : eq(sections.blockId, owner.blockId!));

/** Nests elements under their parents (rows own columns, carousels own slides), each level in sort order. */
function nest(rows: ElementRow[]): Map<string, ElementNode[]> {
  const nodes = new Map(rows.map((r) => [r.id, { ...r, elements: [] as ElementNode[] }]));
  const bySection = new Map<string, ElementNode[]>();
  for (const node of nodes.values()) {
    const parent = node.parentId ? nodes.get(node.parentId) : undefined;
    if (parent) parent.elements.push(node);
    else if (!node.parentId) {
      const list = bySection.get(node.sectionId) ?? [];
      list.push(node);
      bySection.set(node.sectionId, list);
    }
  }
  return bySection;
}

async function sectionsWithElements(db: DbOrTx, churchId: string, rows: SectionRow[]): Promise<SectionNode[]> {
  if (!rows.length) return [];
  const els = await db
    .select()
    .from(elements)
    .where(and(eq(elements.churchId, churchId), inArray(elements.sectionId, rows.map((s) => s.id))))
    .orderBy(asc(elements.sort), asc(elements.id));
  const bySection = nest(els);
  return rows.map((s) => ({ ...s, elements: bySection.get(s.id) ?? [] }));
}

/** A page's or block's sections with their element trees, in zone and sort order. */
export async function loadSections(db: DbOrTx, churchId: string, owner: Owner): Promise<SectionNode[]> {
  const rows = await db.select().from(sections).where(ownerWhere(churchId, owner)).orderBy(asc(sections.zone), asc(sections.sort), asc(sections.id));
  return sectionsWithElements(db, churchId, rows);
}

/**
 * The tree as the renderer reads it: a section that points at a block (`targetBlockId`) gets the block's
 * sections, and a `block` element gets the elements of the block's sections as children. One level deep: a
 * block is not expanded inside a block. `nested` (the editor's and the apps' form) keeps the pointing section
 * with the block's sections under its `sections`; otherwise (the public tree by url, whose ids are stripped)
 * the block's sections stand in its place, in its zone.
 */
export async function loadRenderedSections(db: DbOrTx, churchId: string, owner: Owner, nested = false): Promise<Array<SectionNode & { sections?: SectionNode[] }>> {
  const own = await loadSections(db, churchId, owner);
  const targets = new Set<string>();
  const walk = (list: ElementNode[]) =>
    list.forEach((e) => {
      const target = e.answers?.targetBlockId;
      if (e.elementType === 'block' && typeof target === 'string') targets.add(target);
      walk(e.elements);
    });
  for (const s of own) {
    if (s.targetBlockId) targets.add(s.targetBlockId);
    walk(s.elements);
  }
  const ids = [...targets].filter((x) => /^[0-9a-f-]{36}$/i.test(x));
  if (!ids.length) return own;
  const rows = await db
    .select()
    .from(sections)
    .where(and(eq(sections.churchId, churchId), inArray(sections.blockId, ids)))
    .orderBy(asc(sections.zone), asc(sections.sort), asc(sections.id));
  const blockSections = await sectionsWithElements(db, churchId, rows);
  const ofBlock = (id: string) => blockSections.filter((s) => s.blockId === id);
  const expand = (list: ElementNode[]): ElementNode[] =>
    list.map((e) => {
      const target = e.answers?.targetBlockId;
      if (e.elementType === 'block' && typeof target === 'string') return { ...e, elements: ofBlock(target).flatMap((s) => s.elements) };
      return { ...e, elements: expand(e.elements) };
    });
  if (nested) return own.map((s) => (s.targetBlockId ? { ...s, sections: ofBlock(s.targetBlockId) } : { ...s, elements: expand(s.elements) }));
  return own.flatMap((s) => (s.targetBlockId ? ofBlock(s.targetBlockId).map((b) => ({ ...b, zone: s.zone })) : [{ ...s, elements: expand(s.elements) }]));
}

const INTERNAL = ['id', 'churchId', 'siteId', 'pageId', 'blockId', 'sectionId', 'parentId', 'targetBlockId'];

/** A tree without internal ids (url fetches of the public tree). */
export function stripIds<T>(value: T): T {
  if (Array.isArray(value)) return value.map(stripIds) as T;
  if (!value || typeof value !== 'object' || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!INTERNAL.includes(k)) out[k] = k === 'elements' || k === 'sections' ? stripIds(v) : v;
  return out as T;
}

/** A loaded tree as an input tree (to copy it elsewhere or store it as a snapshot). */
export function toInput(list: SectionNode[]): TreeSectionInput[] {
  const el = (e: ElementNode): TreeElementInput => ({
    elementType: e.elementType,
    sort: e.sort,
    answers: e.answers,
    styles: e.styles,
    animations: e.animations,
    elements: e.elements.map(el),
  });
  return list.map((s) => ({
    zone: s.zone,
    background: s.background,
    textColor: s.textColor,
    headingColor: s.headingColor,
    linkColor: s.linkColor,
    targetBlockId: s.targetBlockId,
    sort: s.sort,
    answers: s.answers,
    styles: s.styles,
    animations: s.animations,
    elements: s.elements.map(el),
  }));
}

/** Elements of a tree, at every depth. */
export function countElements(list: Array<{ elements?: TreeElementInput[] }>): number {
  return list.reduce((n, s) => n + (s.elements?.length ?? 0) + countElements(s.elements ?? []), 0);
}

/**
 * Inserts an input tree under a page or block (fresh ids; ids in the input are never read), after the owner's
 * existing sections. Two statements whatever the size.
 */
export async function insertSections(tx: DbOrTx, churchId: string, owner: Owner, input: TreeSectionInput[], startSort = 0): Promise<string[]> {
  const sectionRows: Array<typeof sections.$inferInsert> = [];
  const elementRows: Array<typeof elements.$inferInsert> = [];
  const addElements = (list: TreeElementInput[] | undefined, sectionId: string, parentId: string | null) =>
    (list ?? []).forEach((e, i) => {
      const id = randomUUID();
      elementRows.push({
        id,
        churchId,
        sectionId,
        blockId: owner.blockId ?? null,
        parentId,
        elementType: e.elementType,
        sort: i + 1,
        answers: e.answers ?? {},
        styles: e.styles ?? {},
        animations: e.animations ?? {},
      });
      addElements(e.elements, sectionId, id);
    });
  const ordered = input.map((s, i) => ({ s, i })).sort((a, b) => (a.s.sort ?? a.i) - (b.s.sort ?? b.i) || a.i - b.i);
  ordered.forEach(({ s }, i) => {
    const id = randomUUID();
    sectionRows.push({
      id,
      churchId,
      pageId: owner.pageId ?? null,
      blockId: owner.blockId ?? null,
      zone: s.zone ?? 'main',
      background: s.background ?? null,
      textColor: s.textColor ?? null,
      headingColor: s.headingColor ?? null,
      linkColor: s.linkColor ?? null,
      targetBlockId: s.targetBlockId ?? null,
      sort: startSort + i + 1,
      answers: s.answers ?? {},
      styles: s.styles ?? {},
      animations: s.animations ?? {},
    });
    addElements(s.elements, id, null);
  });
  if (sectionRows.length) await tx.insert(sections).values(sectionRows);
  // Parents come before their children in the list, so the self-reference holds row by row.
  for (let i = 0; i < elementRows.length; i += 1000) await tx.insert(elements).values(elementRows.slice(i, i + 1000));
  await renumberSections(tx, churchId, owner);
  return sectionRows.map((s) => s.id!);
}

/** Deletes a page's or block's sections (their elements go with them). */
export async function clearSections(tx: DbOrTx, churchId: string, owner: Owner): Promise<void> {
  await tx.delete(sections).where(ownerWhere(churchId, owner));
}

/**
 * Sort orders 1..n per zone of a page or block, keeping the given order (fractional sorts place a section
 * between two others). One statement: a window over the owner's sections (raw SQL: drizzle has no
 * UPDATE ... FROM with a window).
 */
export async function renumberSections(tx: DbOrTx, churchId: string, owner: Owner): Promise<void> {
  const column = owner.pageId ? sql`page_id` : sql`block_id`;
  const ownerId = owner.pageId ?? owner.blockId;
  await tx.execute(sql`
    update sections s set sort = r.n
    from (select id, row_number() over (partition by zone order by sort, id) as n
          from sections where church_id = ${churchId} and ${column} = ${ownerId}) r
    where s.id = r.id and s.sort <> r.n`);
}

/** Sort orders 1..n among the elements of a section with the same parent (raw SQL as above). */
export async function renumberElements(tx: DbOrTx, churchId: string, sectionId: string): Promise<void> {
  await tx.execute(sql`
    update elements e set sort = r.n
    from (select id, row_number() over (partition by parent_id order by sort, id) as n
          from elements where church_id = ${churchId} and section_id = ${sectionId}) r
    where e.id = r.id and e.sort <> r.n`);
}

/** The next sort after the last section of an owner's zone (new sections without a sort go last). */
export async function nextSectionSort(tx: DbOrTx, churchId: string, owner: Owner, zone: string): Promise<number> {
  const [row] = await tx
    .select({ max: sql<number | null>`max(${sections.sort})` })
    .from(sections)
    .where(and(ownerWhere(churchId, owner), eq(sections.zone, zone)));
  return Number(row?.max ?? 0) + 1;
}

export async function nextElementSort(tx: DbOrTx, churchId: string, sectionId: string, parentId: string | null): Promise<number> {
  const [row] = await tx
    .select({ max: sql<number | null>`max(${elements.sort})` })
    .from(elements)
    .where(and(eq(elements.churchId, churchId), eq(elements.sectionId, sectionId), parentId ? eq(elements.parentId, parentId) : sql`${elements.parentId} is null`));
  return Number(row?.max ?? 0) + 1;
}

/** One element with its descendants. */
export async function loadElementTree(db: DbOrTx, churchId: string, element: ElementRow): Promise<ElementNode> {
  const rows = await db.select().from(elements).where(and(eq(elements.churchId, churchId), eq(elements.sectionId, element.sectionId))).orderBy(asc(elements.sort), asc(elements.id));
  const nodes = new Map(rows.map((r) => [r.id, { ...r, elements: [] as ElementNode[] }]));
  for (const node of nodes.values()) if (node.parentId) nodes.get(node.parentId)?.elements.push(node);
  return nodes.get(element.id) ?? { ...element, elements: [] };
}

/** Inserts elements (with children) into a section under `parentId`, at `sort`. */
export async function insertElements(tx: DbOrTx, churchId: string, sectionId: string, blockId: string | null, parentId: string | null, list: TreeElementInput[], sort: number): Promise<string[]> {
  const rows: Array<typeof elements.$inferInsert> = [];
  const add = (items: TreeElementInput[] | undefined, parent: string | null, first?: number) =>
    (items ?? []).forEach((e, i) => {
      const id = randomUUID();
      rows.push({ id, churchId, sectionId, blockId, parentId: parent, elementType: e.elementType, sort: first !== undefined ? first + i : i + 1, answers: e.answers ?? {}, styles: e.styles ?? {}, animations: e.animations ?? {} });
      add(e.elements, id);
    });
  add(list, parentId, sort);
  if (rows.length) await tx.insert(elements).values(rows);
  return rows.filter((r) => r.parentId === parentId).map((r) => r.id!);
}

/** The page of a site (the main site when none is given) at a url. */
export async function pageByUrl(db: DbOrTx, churchId: string, url: string, siteId?: SiteId) {
  const [row] = await db.select().from(pages).where(and(eq(pages.churchId, churchId), ofSite(pages.siteId, siteId), eq(pages.url, url))).limit(1);
  return row;
}

/** The oldest block of a type of a site, else of the main site (a site without its own footer shows the main one). */
export async function firstBlockOfType(db: DbOrTx, churchId: string, blockType: string, siteId?: SiteId) {
  const [row] = await db
    .select()
    .from(blocks)
    .where(and(eq(blocks.churchId, churchId), eq(blocks.blockType, blockType), ofSiteOrMain(blocks.siteId, siteId)))
    .orderBy(sql`${blocks.siteId} is null`, asc(blocks.createdAt), asc(blocks.id))
    .limit(1);
  return row;
}

/** The children of one type (`column` or `slide`) an element owns, in sort order. */
export const childElements = (tx: DbOrTx, churchId: string, parentId: string, elementType: string): Promise<ElementRow[]> =>
  tx
    .select()
    .from(elements)
    .where(and(eq(elements.churchId, churchId), eq(elements.parentId, parentId), eq(elements.elementType, elementType)))
    .orderBy(asc(elements.sort), asc(elements.id));

/** Sets a child element's settings and place. */
export async function placeChildElement(tx: DbOrTx, id: string, answers: Record<string, unknown>, sort: number): Promise<void> {
  await tx.update(elements).set({ answers, sort }).where(eq(elements.id, id));
}

/** Adds a child of `parent` (a row's column or a carousel's slide) at `sort`. */
export async function insertChildElement(tx: DbOrTx, parent: Pick<ElementRow, 'id' | 'churchId' | 'sectionId' | 'blockId'>, elementType: string, sort: number, answers: Record<string, unknown>): Promise<void> {
  await tx.insert(elements).values({ id: randomUUID(), churchId: parent.churchId, sectionId: parent.sectionId, blockId: parent.blockId, parentId: parent.id, elementType, sort, answers });
}

/** Deletes elements by id (children a row or carousel no longer has). */
export async function deleteElementsById(tx: DbOrTx, ids: string[]): Promise<void> {
  if (ids.length) await tx.delete(elements).where(inArray(elements.id, ids));
}
