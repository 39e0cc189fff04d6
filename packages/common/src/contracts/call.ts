import type { z } from 'zod';
import type { ModuleName } from '../config';
import { HttpError } from '../errors';
import type { InternalCallOptions, InternalClient } from '../internal';

/** A route one module serves others over signed HTTP: its module, path, the body it takes, the answer it gives. */
export interface InternalContract<B extends z.ZodType = z.ZodType, A extends z.ZodType = z.ZodType> {
  readonly module: ModuleName;
  readonly path: string;
  readonly body: B;
  readonly answer: A;
}

/** Answers already parsed, by the kept (revalidated) answer they came from: a 304 costs no second parse. */
const parsedAnswers = new WeakMap<object, unknown>();

/**
 * The one way to call another module: the body is checked against the contract before it is sent and the answer
 * parsed after. One failure policy: a callee that is briefly away (503) is passed on as a 503 with its Retry-After,
 * so the client retries; anything else — unreachable, a timeout, a 5xx, a 4xx of the callee's own (a route it
 * lacks, a secret that does not match), an answer of the wrong shape — is this module's 502 naming the callee,
 * never an empty or partial answer. `passClientErrors` hands the callee's 4xx on instead, for calls whose 4xx is
 * about the caller's own input (a person update the callee validates).
 */
export async function callInternal<B extends z.ZodType, A extends z.ZodType>(
  internal: InternalClient,
  contract: InternalContract<B, A>,
  body: z.input<B>,
  opts: InternalCallOptions & { passClientErrors?: boolean } = {},
): Promise<z.output<A>> {
  const { module } = contract;
  let data: unknown;
  try {
    data = await internal.post(module, contract.path, contract.body.parse(body), opts);
  } catch (err) {
    if (err instanceof HttpError && (err.statusCode === 503 || (opts.passClientErrors && err.statusCode < 500))) throw err;
    const status = err instanceof HttpError ? err.statusCode : undefined;
    throw new HttpError(502, [{ msg: status && status !== 502 ? `${module} answered ${status}` : `${module} is unreachable` }]);
  }
  if (data !== null && typeof data === 'object' && parsedAnswers.has(data)) return parsedAnswers.get(data) as z.output<A>;
  const parsed = contract.answer.safeParse(data);
  if (!parsed.success) throw new HttpError(502, [{ msg: `${module} answered an unexpected shape` }]);
  if (opts.revalidate && data !== null && typeof data === 'object') parsedAnswers.set(data, parsed.data);
  return parsed.data;
}
