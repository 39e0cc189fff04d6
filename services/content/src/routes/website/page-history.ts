import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { badRequest, getRow, IdParams, type ZodTypeProvider } from '@church/common';
import { blocks, pageHistory, pages } from '../../db/website';
import type { ContentDeps } from '../../deps';
import { checkNested } from '../../domain/references';
import { blockTree, ownerOf, pageTree, restoreTree, takeSnapshot } from '../../domain/website/tree';
import { historyOf, recordHistory, type HistoryRow } from '../../repos/website/history';
import type { Owner } from '../../repos/website/tree';
import { BlockParams, HistoryEntries, HistoryEntry, HistorySave, PageParams, RestoreSnapshotBody, SnapshotIn, TreeAnswer } from '../../schemas/website';

const base = '/content/pageHistory';
const edit = requires('Content.Edit');

/** `/content/pageHistory`: snapshots of page and block trees, and restoring them (all Content.Edit). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get(`${base}/page/:pageId`, { config: { access: edit }, schema: { params: PageParams, response: { 200: HistoryEntries } } }, async (req) =>
    (await historyOf(app.db, req.auth.churchId, { pageId: req.params.pageId })).map(entryAnswer),
  );
  app.get(`${base}/block/:blockId`, { config: { access: edit }, schema: { params: BlockParams, response: { 200: HistoryEntries } } }, async (req) =>
    (await historyOf(app.db, req.auth.churchId, { blockId: req.params.blockId })).map(entryAnswer),
  );
  app.get(`${base}/:id`, { config: { access: edit }, schema: { params: IdParams, response: { 200: HistoryEntry } } }, async (req) =>
    entryAnswer(await getRow(app.db, pageHistory, req.auth.churchId, req.params.id, 'History entry')),
  );

  // Without a `snapshot` (or the editor's `snapshotJSON`) in the body, the page's or block's current tree is
  // stored. The editor's snapshot is kept as it sent it (its history reads it back), once it is known to restore.
  app.post(base, { config: { access: edit }, schema: { body: HistorySave, response: { 200: HistoryEntry } } }, async (req) => {
    const churchId = req.auth.churchId;
    const owner = await ownerOf(app.db, churchId, req.body);
    const given = req.body.snapshotJSON ? snapshotOfText(req.body.snapshotJSON) : req.body.snapshot;
    if (given) await checkSnapshot(app.deps, churchId, given, req.body.snapshotJSON ? 'snapshotJSON' : 'snapshot');
    const snapshot = given ?? (await takeSnapshot(app.db, churchId, owner));
    return entryAnswer(await recordHistory(app.db, churchId, owner, snapshot, req.body.description ?? null, req.auth.id));
  });

  // The current content is kept as an entry first, so a restore can itself be undone. The answer is the
  // restored tree, with `success` and the `snapshot` restored, which the site editor's undo checks.
  app.post(`${base}/restore/:id`, { config: { access: edit }, schema: { params: IdParams, response: { 200: TreeAnswer } } }, async (req) => {
    const churchId = req.auth.churchId;
    const entry = await getRow(app.db, pageHistory, churchId, req.params.id, 'History entry');
    const owner = await ownerOf(app.db, churchId, entry);
    const snapshot = SnapshotIn.parse(entry.snapshot);
    await checkSnapshot(app.deps, churchId, snapshot, 'snapshot');
    return { ...(await restore(churchId, owner, snapshot, req.auth.id)), success: true, snapshot: entry.snapshot };
  });

  app.post(`${base}/restoreSnapshot`, { config: { access: edit }, schema: { body: RestoreSnapshotBody, response: { 200: TreeAnswer } } }, async (req) => {
    const churchId = req.auth.churchId;
    const owner = await ownerOf(app.db, churchId, req.body);
    await checkSnapshot(app.deps, churchId, req.body.snapshot, 'snapshot');
    return { ...(await restore(churchId, owner, req.body.snapshot, req.auth.id)), success: true, snapshot: req.body.snapshot };
  });

  async function restore(churchId: string, owner: Owner, snapshot: z.output<typeof SnapshotIn>, userId: string) {
    return app.db.transaction(async (tx) => {
      await recordHistory(tx, churchId, owner, await takeSnapshot(tx, churchId, owner), 'Before restore', userId);
      await restoreTree(tx, churchId, owner, snapshot);
      if (owner.pageId) return pageTree(tx, await getRow(tx, pages, churchId, owner.pageId, 'Page'));
      return blockTree(tx, await getRow(tx, blocks, churchId, owner.blockId!, 'Block'));
    });
  }
}

/** The blocks a snapshot's sections point at are the church's (400 naming `<param>.sections[i].targetBlockId`). */
async function checkSnapshot(deps: Pick<ContentDeps, 'db' | 'internal'>, churchId: string, snapshot: { sections?: unknown }, param: string): Promise<void> {
  const list = Array.isArray(snapshot.sections) ? (snapshot.sections as Array<Record<string, unknown>>) : [];
  await checkNested(deps, churchId, list, { targetBlockId: blocks }, `${param}.sections`);
}

const entryAnswer = (row: HistoryRow) => ({ ...row, snapshotJSON: JSON.stringify(row.snapshot), createdDate: row.createdAt });

/** The editor's snapshot text: JSON of a tree that restores (400 naming `snapshotJSON` otherwise), kept as sent. */
function snapshotOfText(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('snapshotJSON', 'must be JSON text of a snapshot');
  }
  const checked = SnapshotIn.safeParse(value);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw badRequest(['snapshotJSON', ...issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))].join(''), issue.message);
  }
  return value as Record<string, unknown>;
}
