import type { DbOrTx } from '@church/common';
import { postMessages, type ChatPost, type ChatPostResult } from '../repos/conversations';

/** Most posts one statement carries. */
const MAX_BATCH = 100;

interface Waiting {
  post: ChatPost;
  resolve: (result: ChatPostResult) => void;
  reject: (err: unknown) => void;
}

/**
 * Posts to live chats, one statement at a time per conversation: a post goes out at once when none of its
 * conversation's is in flight, and the posts arriving meanwhile go out together in the next statement. Every
 * message moves its conversation's counters, so concurrent statements on one busy chat queued on that row's lock
 * in PostgreSQL, each then committing (and flushing WAL) on its own: with ten connections posting to one chat,
 * PostgreSQL spent 0.7–0.8 ms of CPU per message against 0.33 ms with one, and a send took p50 5–9 ms against 1 ms.
 * Here they wait in this process instead, for one statement and one commit between them.
 */
export function chatPoster(db: DbOrTx) {
  const lines = new Map<string, Waiting[]>();
  const drain = async (key: string, churchId: string, conversationId: string, waiting: Waiting[]) => {
    while (waiting.length) {
      const batch = waiting.splice(0, MAX_BATCH);
      try {
        const results = await postMessages(db, churchId, conversationId, batch.map((w) => w.post));
        batch.forEach((w, i) => w.resolve(results[i]));
      } catch (err) {
        if (batch.length === 1) batch[0]!.reject(err);
        // one post the database refuses (a NUL in its text) must not fail the others: each alone, as if unbatched
        else for (const w of batch) await postMessages(db, churchId, conversationId, [w.post]).then(([result]) => w.resolve(result), w.reject);
      }
    }
    lines.delete(key);
  };
  return (churchId: string, conversationId: string, post: ChatPost): Promise<ChatPostResult> =>
    new Promise((resolve, reject) => {
      const key = `${churchId}|${conversationId}`;
      const waiting = lines.get(key);
      if (waiting) return void waiting.push({ post, resolve, reject });
      const line = [{ post, resolve, reject }];
      lines.set(key, line);
      void drain(key, churchId, conversationId, line);
    });
}
