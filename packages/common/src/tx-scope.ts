import { AsyncLocalStorage } from 'node:async_hooks';
import type { ModuleName } from './config';
import type { InternalCallOptions, InternalClient } from './internal';

/**
 * The rule "no module calls another while it holds a transaction open", checked where a tool can check it.
 *
 * A call made inside a transaction holds the transaction (and, on the embedded default, the one database
 * session every module shares) for the callee's whole answer; a callee that needs the same session waits for
 * itself. Work for another module inside a transaction goes through the outbox (a job enqueued with the `tx`).
 *
 * Tracking costs an AsyncLocalStorage on every transaction, so it is on where the rule is enforced: in tests
 * (`NODE_ENV=test`, which Jest sets) and wherever `CHECK_TRANSACTION_CALLS=1`. There a call inside a transaction
 * throws; elsewhere nothing is tracked.
 */
const scope = process.env.NODE_ENV === 'test' || process.env.CHECK_TRANSACTION_CALLS === '1' ? new AsyncLocalStorage<true>() : undefined;

interface Transactional {
  transaction(fn: (tx: never) => Promise<unknown>, config?: unknown): Promise<unknown>;
}

/** Marks everything a transaction's callback runs as inside it (when tracking is on). */
export function trackTransactions<D extends object>(db: D): D {
  if (!scope) return db;
  const target = db as unknown as Transactional;
  const original = target.transaction.bind(db);
  target.transaction = (fn, config) => scope.run(true, () => original(fn, config));
  return db;
}

/**
 * Runs `work` outside any transaction's scope: a job handler, which a transaction's commit may have set going
 * (a timer or a relay started inside the transaction's callback carries its scope along), runs on its own.
 */
export function outsideTransaction<T>(work: () => T): T {
  return scope ? scope.exit(work) : work();
}

/** An internal client that refuses a call made while a transaction is open (when tracking is on). */
export function refuseCallsInTransactions(client: InternalClient): InternalClient {
  if (!scope) return client;
  const check = (module: string, path: string) => {
    if (scope.getStore()) throw new Error(`internal call to ${module} ${path} made while a database transaction is open: call before the transaction, or enqueue a job with its tx`);
  };
  return {
    ...client,
    request: <T>(module: ModuleName, method: string, path: string, body?: unknown, opts?: InternalCallOptions) => (check(module, path), client.request<T>(module, method, path, body, opts)),
    get: <T>(module: ModuleName, path: string, opts?: InternalCallOptions) => (check(module, path), client.get<T>(module, path, opts)),
    post: <T>(module: ModuleName, path: string, body: unknown, opts?: InternalCallOptions) => (check(module, path), client.post<T>(module, path, body, opts)),
  };
}
