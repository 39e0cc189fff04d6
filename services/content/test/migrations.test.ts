import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { testDatabase } from '@church/common/testing';
import { streamingServices } from '../src/db/media';
import { MIGRATIONS } from './setup';

const [WEBSITE, MEDIA] = MIGRATIONS as [string, string];

/** The media migrations folder as it was before `tag` (same folder name, so the same journal table). */
function mediaBefore(tag: string): { folder: string; remove: () => void } {
  const root = mkdtempSync(path.join(tmpdir(), 'content-media-'));
  const folder = path.join(root, 'media');
  cpSync(MEDIA, folder, { recursive: true });
  const journalPath = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  expect(at).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  return { folder, remove: () => rmSync(root, { recursive: true, force: true }) };
}

describe('media migrations', () => {
  it('0003 turns the streaming services saved in minutes into seconds, so each keeps its length', async () => {
    const before = mediaBefore('0003_streaming_duration_seconds');
    const database = await testDatabase('content', [WEBSITE, before.folder]);
    try {
      const churchId = crypto.randomUUID();
      const [ninety, hour] = [crypto.randomUUID(), crypto.randomUUID()];
      await database.db.insert(streamingServices).values([
        { id: ninety, churchId, serviceTime: new Date(), duration: 90, chatAfter: 600 },
        { id: hour, churchId, serviceTime: new Date(), duration: 60 },
      ]);
      await database.migrate([WEBSITE, MEDIA]);
      const durationOf = async (id: string) => (await database.db.select().from(streamingServices).where(eq(streamingServices.id, id)))[0]!;
      expect(await durationOf(ninety)).toMatchObject({ duration: 5400, chatAfter: 600 });
      expect((await durationOf(hour)).duration).toBe(3600);
      // A service saved after the migration without a duration lasts an hour.
      const fresh = crypto.randomUUID();
      await database.db.insert(streamingServices).values({ id: fresh, churchId, serviceTime: new Date() });
      expect((await durationOf(fresh)).duration).toBe(3600);
    } finally {
      await database.close();
      before.remove();
    }
  });
});
