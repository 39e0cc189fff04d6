import type { Db, Tx } from '@church/common';
import { postMessages, type ChatPost, type ChatPostResult } from '../repos/messages';

/** Most posts one statement carries. */
const MAX_BATCH = 100;

interface Waiting {
  post: ChatPost;
  resolve: (result: ChatPostResult) => void;
  reject: (err: unknown) => void;
}

/** What is done with the posts of one statement inside its transaction: their pushes and notifications (the outbox). */
export type OnPosted = (tx: Tx, results: ChatPostResult[]) => Promise<void>;

/**
 * Posts to live chats, one transaction at a time per conversation: a post goes out at once when none of its
 * conversation's is in flight, and the posts arriving meanwhile go out together in the next one. Every message moves
 * its conversation's counters, so concurrent statements on one busy chat would queue on that row's lock in
 * PostgreSQL, each then committing (and flushing WAL) on its own; here they wait in this process instead, for one
 * statement and one commit between them. Each transaction also writes the posts' effects (`onPosted`: the real-time
 * push, a local job of the outbox), so a post that is answered has its push, whatever Redis is doing.
 */
export function chatPoster(db: Db, onPosted: OnPosted) {
  const lines = new Map<string, Waiting[]>();
  const post = (churchId: string, conversationId: string, posts: ChatPost[]) =>
    db.transaction(async (tx) => {
      const results = await postMessages(tx, churchId, conversationId, posts);
      await onPosted(tx, results);
      return results;
    });
  const drain = async (key: string, churchId: string, conversationId: string, waiting: Waiting[]) => {
    while (waiting.length) {
      const batch = waiting.splice(0, MAX_BATCH);
      try {
        const results = await post(churchId, conversationId, batch.map((w) => w.post));
        batch.forEach((w, i) => w.resolve(results[i]));
      } catch (err) {
        if (batch.length === 1) batch[0]!.reject(err);
        // one post the database refuses (a NUL in its text) must not fail the others: each alone, as if unbatched
        else for (const w of batch) await post(churchId, conversationId, [w.post]).then(([result]) => w.resolve(result), w.reject);
      }
    }
    lines.delete(key);
  };
  return (churchId: string, conversationId: string, chatPost: ChatPost): Promise<ChatPostResult> =>
    new Promise((resolve, reject) => {
      const key = `${churchId}|${conversationId}`;
      const waiting = lines.get(key);
      if (waiting) return void waiting.push({ post: chatPost, resolve, reject });
      const line = [{ post: chatPost, resolve, reject }];
      lines.set(key, line);
      void drain(key, churchId, conversationId, line);
    });
}
