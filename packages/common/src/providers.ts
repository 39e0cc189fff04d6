import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { HttpError } from './errors';

/**
 * Outside systems (payments, SMS, push, email, storage, video hosts, AI, speech) follow one pattern:
 *
 * - an interface in the module (`src/providers/<kind>.ts`) that routes and jobs call;
 * - a real adapter on the provider's own SDK or documented HTTP API, with its base URL overridable so tests
 *   drive the real SDK against a fake server on loopback (`fakeServer` in `@church/common/testing`);
 * - a development adapter for the embedded default: email to the dev mailbox, SMS and push to
 *   `$DATA_DIR/outbox/<kind>/` (`writeOutbox`), or, where nothing sensible can stand in (payments, video
 *   hosts, AI), a clear 4xx naming the missing setting (`notConfigured`);
 * - chosen once from config when the module builds its dependencies, and replaced in tests.
 */

/** 400: the feature needs an outside system this instance (or church) has not configured; names the setting. */
export function notConfigured(what: string, setting: string): HttpError {
  return new HttpError(400, [{ msg: `${what} is not configured: set ${setting}`, param: setting, location: 'config' }]);
}

/**
 * 502: the outside system failed or refused in a way the caller cannot fix (an outage, a timeout, a bad
 * answer). `detail` is the provider's own short message, never a stack or a secret.
 */
export function providerFailed(what: string, detail?: string): HttpError {
  return new HttpError(502, [{ msg: `${what} failed${detail ? `: ${detail.slice(0, 300)}` : ''}` }]);
}

/** The provider's message of an SDK error, short and without secrets, for `providerFailed`. */
export function providerMessage(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err && typeof err.message === 'string') return err.message.slice(0, 300);
  return 'unexpected error';
}

/** Writes one outgoing message of a development adapter to `$DATA_DIR/outbox/<kind>/`; answers its id. */
export async function writeOutbox(dataDir: string, kind: string, message: object): Promise<string> {
  const dir = path.join(path.resolve(dataDir), 'outbox', kind);
  await mkdir(dir, { recursive: true });
  const id = randomUUID();
  await writeFile(path.join(dir, `${Date.now()}-${id}.json`), JSON.stringify({ id, ...message }, null, 2));
  return id;
}

/** The messages of `$DATA_DIR/outbox/<kind>/`, oldest first (tests and the development adapters' readers). */
export async function readOutbox<T = Record<string, unknown>>(dataDir: string, kind: string): Promise<T[]> {
  const dir = path.join(path.resolve(dataDir), 'outbox', kind);
  let files: string[];
  try {
    files = (await readdir(dir)).sort();
  } catch {
    return [];
  }
  return Promise.all(files.map(async (f) => JSON.parse(await readFile(path.join(dir, f), 'utf8')) as T));
}

/** Joins a configured base URL and a path without doubling or dropping the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** A provider's answer: its status and its body, parsed when it is JSON (`json`), otherwise its text. */
export interface ProviderAnswer<T = unknown> {
  status: number;
  data: T;
  json: boolean;
}

/**
 * One call to an outside system's documented HTTP API with a timeout. An outage, a timeout or a status not 2xx is a
 * 502 naming the provider (`providerFailed`), except the statuses in `pass` (404 unless told), which the caller
 * turns into its own answer (a 404 of its own, a refreshed token, the caller's mistake).
 */
export async function fetchJson<T = unknown>(
  what: string,
  url: string,
  init: RequestInit & { timeoutMs?: number; pass?: readonly number[] } = {},
): Promise<ProviderAnswer<T>> {
  const { timeoutMs = 15_000, pass = [404], ...request } = init;
  let res: Response;
  try {
    res = await fetch(url, { ...request, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const name = (err as Error).name;
    throw providerFailed(what, name === 'TimeoutError' || name === 'AbortError' ? 'timed out' : (err as Error).message || 'unreachable');
  }
  const text = await res.text();
  let data: unknown = text;
  let json = false;
  try {
    data = text ? JSON.parse(text) : undefined;
    json = true;
  } catch {
    // not JSON: the text
  }
  if (!res.ok && !pass.includes(res.status)) throw providerFailed(what, `answered ${res.status}`);
  return { status: res.status, data: data as T, json };
}
