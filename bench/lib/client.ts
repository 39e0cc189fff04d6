import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * Calls a bench script makes as a client of the running fleet: a request through the gateway, the dev mailbox,
 * and a user signed up the way the apps do it (register, the emailed link, a password).
 */

/** One request through the gateway; status 0 when no answer came (the fault scripts count those). */
export async function api(base: string, method: string, url: string, body?: unknown, token?: string): Promise<{ status: number; json: unknown; ms: number; headers?: Headers }> {
  const started = performance.now();
  try {
    const res = await fetch(base + url, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    return { status: res.status, json, ms: performance.now() - started, headers: res.headers };
  } catch {
    return { status: 0, json: undefined, ms: performance.now() - started };
  }
}


/** The answer's body, or an error naming the call when it is not a 2xx. */
export function must<T>(res: { status: number; json: unknown }, what: string): T {
  if (res.status < 200 || res.status > 299) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.json)?.slice(0, 300)}`);
  return res.json as T;
}


/** The messages of the dev mailbox (`$DATA_DIR/mail`), skipping one being written. */
export function mailbox(dataDir: string): Array<{ to: string; subject: string; text: string }> {
  const dir = path.join(dataDir, 'mail');
  let files: string[] = [];
  try {
    files = readdirSync(dir);
  } catch {
    return [];
  }
  const out = [];
  for (const f of files) {
    try {
      out.push(JSON.parse(readFileSync(path.join(dir, f), 'utf8')));
    } catch {
      // a mail being written this moment
    }
  }
  return out;
}

/** Registers `email`, follows the emailed link and sets `password`, as the login package does; answers the user's token. */
export async function signUp(base: string, dataDir: string, email: string, password: string, names = { firstName: 'Bench', lastName: 'User' }): Promise<string> {
  must(await api(base, 'POST', '/membership/users/register', { email, ...names }), 'register');
  let auth: string | undefined;
  for (let i = 0; i < 100 && !auth; i++) {
    auth = mailbox(dataDir)
      .find((m) => m.to === email)
      ?.text.match(/auth=([A-Za-z0-9_-]+)/)?.[1];
    if (!auth) await new Promise((r) => setTimeout(r, 100));
  }
  if (!auth) throw new Error(`no welcome mail reached ${email}`);
  must(await api(base, 'POST', '/membership/users/setPasswordGuid', { authGuid: auth, newPassword: password }), 'setPasswordGuid');
  return must<{ user: { jwt: string } }>(await api(base, 'POST', '/membership/users/login', { email, password }), 'login').user.jwt;
}
