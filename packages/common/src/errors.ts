/** One entry of the spec's error body `{errors:[{msg, param, location}]}`. */
export interface ErrorItem {
  msg: string;
  param?: string;
  location?: string;
}

/** An error with an HTTP status that the shared error handler turns into the spec's error body. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly errors: ErrorItem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(errors[0]?.msg ?? `HTTP ${statusCode}`);
  }
}

/** 400 naming the offending field. */
export const badRequest = (param: string, msg: string, location = 'body') => new HttpError(400, [{ msg, param, location }]);
/** 400 for several fields at once (for example every missing required field). */
export const validationFailed = (errors: ErrorItem[]) => new HttpError(400, errors);
/** 401: missing or invalid token, or a missing permission (the spec uses 401 for both). */
export const unauthorized = (msg = 'Unauthorized') => new HttpError(401, [{ msg }]);
/** 404: absent, or not in the caller's church (never 403, which would leak existence). */
export const notFound = (what = 'Record') => new HttpError(404, [{ msg: `${what} not found` }]);
/** 409: the request conflicts with existing data (a taken subdomain, a duplicate slug). */
export const conflict = (msg: string, param?: string) => new HttpError(409, [{ msg, ...(param ? { param, location: 'body' } : {}) }]);
/** 429 with `Retry-After` in seconds. */
export const tooManyRequests = (retryAfterSeconds: number) =>
  new HttpError(429, [{ msg: 'Too many requests, try again later' }], { 'retry-after': String(retryAfterSeconds) });

/** What an error answer carries at `errors[i]`: the spec's item for a 400, a readable sentence otherwise. */
export type ErrorEntry = ErrorItem | string;

/**
 * The body of an error answer. A 400 keeps the spec's `{msg, param, location}` items; every other status carries
 * readable strings, because the apps show `errors[0]` to the person as it stands (`new Error(json.errors[0])`).
 */
export function errorBody(status: number, errors: ErrorItem[]): { errors: ErrorEntry[] } {
  return { errors: status === 400 ? errors : errors.map((e) => e.msg) };
}

/** An error body as another module wrote it (either form), as items: what the internal client re-throws. */
export function errorItems(errors: unknown): ErrorItem[] | undefined {
  if (!Array.isArray(errors) || !errors.length) return undefined;
  return errors.map((e) => (typeof e === 'string' ? { msg: e } : e && typeof e === 'object' && typeof (e as ErrorItem).msg === 'string' ? (e as ErrorItem) : { msg: String(e) }));
}

/** The router's answer for a path it does not know: Fastify's wording, which the route-coverage tools look for. */
export function routeNotFound(method: string, url: string): { errors: string[]; message: string } {
  const message = `Route ${method}:${url.split('?')[0]} not found`;
  return { errors: [message], message };
}
