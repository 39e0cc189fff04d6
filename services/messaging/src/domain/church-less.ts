/**
 * The church id membership puts in the token of a user who has no church yet (its `SERVER_CHURCH_ID`): every such
 * user shares it, so nothing of messaging may live under it. Routes refuse such a token (public ones treat it as no
 * token) and any request naming this church (`routes/church-less.ts`).
 */
export const NO_CHURCH_ID = '00000000-0000-0000-0000-000000000000';

/** Where a request names the no-church id: `params` / `query` by name, a body (or a batch's item) by its `churchId`. */
export function noChurchIn(req: { params?: unknown; query?: unknown; body?: unknown }): { location: 'params' | 'query' | 'body'; param: string } | null {
  const field = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>).churchId : undefined);
  if (field(req.params) === NO_CHURCH_ID) return { location: 'params', param: 'churchId' };
  if (field(req.query) === NO_CHURCH_ID) return { location: 'query', param: 'churchId' };
  if (Array.isArray(req.body)) {
    const i = req.body.findIndex((item) => field(item) === NO_CHURCH_ID);
    return i < 0 ? null : { location: 'body', param: `[${i}].churchId` };
  }
  return field(req.body) === NO_CHURCH_ID ? { location: 'body', param: 'churchId' } : null;
}
