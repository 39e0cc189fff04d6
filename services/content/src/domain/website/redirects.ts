import { badRequest } from '@church/common';

export const MAX_REDIRECTS = 200;

/** A site path: lower case, one leading slash, no trailing slash, no query or fragment. */
export function normalizePath(path: string): string {
  let p = path.trim().split(/[?#]/)[0]!.toLowerCase().replace(/\/{2,}/g, '/');
  if (!p.startsWith('/')) p = `/${p}`;
  if (p.length > 1) p = p.replace(/\/+$/, '');
  return p;
}

/** A target: another site's address is kept as written; a path of this site is normalised like `fromPath`. */
export function normalizeTarget(target: string): string {
  return /^https?:\/\//i.test(target.trim()) ? target.trim() : normalizePath(target);
}

/**
 * The rules over the church's whole set after a save: at most 200, none to itself, and no chains (a target that
 * is itself redirected, which also rules out loops): clients issue one 308 and expect to land on a page.
 * `param(i, field)` names the field of the i-th saved item.
 */
export function checkRedirects(all: Array<{ fromPath: string; toPath: string; item?: number }>, param: (i: number, field: string) => string): void {
  if (all.length > MAX_REDIRECTS) {
    const first = all.find((r) => r.item !== undefined);
    throw badRequest(first ? param(first.item!, 'fromPath') : 'fromPath', `at most ${MAX_REDIRECTS} redirects per church`);
  }
  const from = new Set(all.map((r) => r.fromPath));
  for (const r of all) {
    if (r.item === undefined) continue;
    if (r.fromPath === r.toPath) throw badRequest(param(r.item, 'toPath'), 'must differ from fromPath');
    if (from.has(r.toPath)) throw badRequest(param(r.item, 'toPath'), `${r.toPath} is itself redirected; point to the final address`);
    const into = all.find((o) => o.toPath === r.fromPath && o !== r);
    if (into) throw badRequest(param(r.item, 'fromPath'), `${into.fromPath} already redirects to ${r.fromPath}; that would make a chain`);
  }
}
