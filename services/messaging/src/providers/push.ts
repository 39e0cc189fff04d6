import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { writeOutbox, providerMessage } from '@church/common';

/** One push notification to one device token. */
export interface PushMessage {
  token: string;
  title: string;
  body: string;
  data?: Record<string, string>;
}

/** What became of one push: `unregistered` means the token is dead and its device must forget it. */
export interface PushResult {
  provider: 'expo' | 'fcm' | 'outbox' | 'webpush';
  status: 'sent' | 'failed' | 'unregistered';
  providerMessageId?: string;
  error?: string;
}

export interface PushProvider {
  readonly kind: 'real' | 'outbox';
  send(messages: PushMessage[]): Promise<PushResult[]>;
}

export interface PushConfig {
  dataDir: string;
  enabled: boolean;
  expoAccessToken?: string;
  expoBaseUrl?: string;
  fcmBaseUrl: string;
  fcmProjectId?: string;
  fcmAccessToken?: string;
  fcmServiceAccountJson?: string;
}

/** The embedded default: each push is written to `$DATA_DIR/outbox/push/`. */
export function outboxPush(dataDir: string): PushProvider {
  return {
    kind: 'outbox',
    async send(messages) {
      const out: PushResult[] = [];
      for (const m of messages) out.push({ provider: 'outbox', status: 'sent', providerMessageId: await writeOutbox(dataDir, 'push', m) });
      return out;
    },
  };
}

/**
 * expo-server-sdk is ESM only. It is imported through Node's own loader (a `vm.Script` whose dynamic import uses
 * the main context's default loader), which works the same under tsx, plain Node and Jest's sandbox.
 */
function nativeImport(specifier: string): Promise<unknown> {
  const vm = require('node:vm') as typeof import('node:vm') & { constants?: { USE_MAIN_CONTEXT_DEFAULT_LOADER?: symbol } };
  const loader = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  const url = pathToFileURL(specifier).href;
  if (!loader) return (new Function('s', 'return import(s)') as (s: string) => Promise<unknown>)(url);
  const load = new vm.Script('(s) => import(s)', { importModuleDynamically: loader }).runInThisContext() as (s: string) => Promise<unknown>;
  return load(url);
}

interface ExpoTicket {
  status: 'ok' | 'error';
  id?: string;
  message?: string;
  details?: { error?: string };
}
interface ExpoClient {
  sendPushNotificationsAsync(messages: Array<Record<string, unknown>>): Promise<ExpoTicket[]>;
  chunkPushNotifications(messages: Array<Record<string, unknown>>): Array<Array<Record<string, unknown>>>;
}
interface ExpoModule {
  Expo: { new (opts: { accessToken?: string; httpAgent?: unknown; retryMinTimeout?: number }): ExpoClient; isExpoPushToken(token: string): boolean };
}

/**
 * The SDK reads its base URL from `EXPO_BASE_URL` once, when it is first loaded. Its documented `httpAgent`
 * option takes an undici dispatcher, so this instance's base URL is applied there instead: a dispatcher that sends
 * each request to `baseUrl` (same path), built from the undici the SDK itself uses.
 */
async function rebasingDispatcher(sdkPath: string, baseUrl: string): Promise<unknown> {
  const undiciPath = createRequire(sdkPath).resolve('undici');
  const loaded = (await nativeImport(undiciPath)) as { Agent?: unknown; default?: { Agent: unknown } };
  const Agent = (loaded.Agent ?? loaded.default?.Agent) as new () => { compose(i: unknown): unknown };
  const origin = new URL(baseUrl).origin;
  return new Agent().compose(
    (dispatch: (opts: Record<string, unknown>, handler: unknown) => boolean) => (opts: Record<string, unknown>, handler: unknown) =>
      dispatch({ ...opts, origin }, handler),
  );
}

/** Expo push tokens through expo-server-sdk. */
export function expoPush(cfg: Pick<PushConfig, 'expoAccessToken' | 'expoBaseUrl'>) {
  let client: Promise<{ expo: ExpoClient }> | undefined;
  const load = () =>
    (client ??= (async () => {
      const sdkPath = require.resolve('expo-server-sdk');
      const { Expo } = (await nativeImport(sdkPath)) as ExpoModule;
      const httpAgent = cfg.expoBaseUrl ? await rebasingDispatcher(sdkPath, cfg.expoBaseUrl) : undefined;
      return { expo: new Expo({ accessToken: cfg.expoAccessToken, retryMinTimeout: 100, ...(httpAgent ? { httpAgent } : {}) }) };
    })());
  return {
    async send(messages: PushMessage[]): Promise<PushResult[]> {
      const { expo } = await load();
      const payload = messages.map((m) => ({ to: m.token, title: m.title, body: m.body, data: m.data ?? {}, sound: 'default' }));
      const out: PushResult[] = [];
      for (const chunk of expo.chunkPushNotifications(payload)) {
        try {
          const tickets = await expo.sendPushNotificationsAsync(chunk);
          for (const t of tickets) {
            if (t.status === 'ok') out.push({ provider: 'expo', status: 'sent', providerMessageId: t.id });
            else out.push({ provider: 'expo', status: t.details?.error === 'DeviceNotRegistered' ? 'unregistered' : 'failed', error: t.message ?? t.details?.error });
          }
        } catch (err) {
          for (let i = 0; i < chunk.length; i++) out.push({ provider: 'expo', status: 'failed', error: providerMessage(err) });
        }
      }
      return out;
    },
  };
}

/**
 * An https agent whose connections go to `baseUrl` instead (plain TCP for an `http:` base, TLS to its host for
 * `https:`): firebase-admin's messaging client sends to the fixed host fcm.googleapis.com, and its documented
 * `httpAgent` app option is how one instance is aimed elsewhere (tests: a loopback fake).
 */
function rebasingAgent(baseUrl: string): import('node:https').Agent {
  const https = require('node:https') as typeof import('node:https');
  const net = require('node:net') as typeof import('node:net');
  const tls = require('node:tls') as typeof import('node:tls');
  const base = new URL(baseUrl);
  const secure = base.protocol === 'https:';
  const port = Number(base.port || (secure ? 443 : 80));
  class Rebased extends https.Agent {
    override createConnection(): import('node:net').Socket {
      return secure ? tls.connect({ host: base.hostname, port, servername: base.hostname }) : net.connect({ host: base.hostname, port });
    }
  }
  return new Rebased({ keepAlive: true });
}

const FCM_DEFAULT_ORIGIN = 'https://fcm.googleapis.com';
let fcmApps = 0;

/** A Google service-account key file as downloaded (snake_case keys): firebase-admin's `cert` reads these as well as its camelCase ones. */
type ServiceAccountJson = import('firebase-admin/app').ServiceAccount & { project_id?: string; client_email?: string; private_key?: string };

/**
 * Firebase Cloud Messaging through firebase-admin's messaging client (`getMessaging(app).send`, FCM HTTP v1). The
 * OAuth token comes from firebase-admin's service-account credential, or from FCM_ACCESS_TOKEN; a base URL other
 * than Google's goes through `rebasingAgent` (the client's host is fixed).
 */
export function fcmPush(cfg: Pick<PushConfig, 'fcmBaseUrl' | 'fcmProjectId' | 'fcmAccessToken' | 'fcmServiceAccountJson'>) {
  const account = cfg.fcmServiceAccountJson ? (JSON.parse(cfg.fcmServiceAccountJson) as ServiceAccountJson) : undefined;
  const projectId = cfg.fcmProjectId ?? account?.project_id;
  const configured = Boolean(projectId && (cfg.fcmAccessToken || account));
  let client: import('firebase-admin/messaging').Messaging | undefined;
  const messaging = () => {
    if (client) return client;
    const { cert, initializeApp } = require('firebase-admin/app') as typeof import('firebase-admin/app');
    const { getMessaging } = require('firebase-admin/messaging') as typeof import('firebase-admin/messaging');
    const token = cfg.fcmAccessToken;
    // `send` asks for the client only when configured: without a token the service account is there
    const credential = token ? { getAccessToken: async () => ({ access_token: token, expires_in: 3600 }) } : cert(account!);
    const rebased = new URL(cfg.fcmBaseUrl).origin !== FCM_DEFAULT_ORIGIN;
    const app = initializeApp({ credential, projectId, ...(rebased ? { httpAgent: rebasingAgent(cfg.fcmBaseUrl) } : {}) }, `messaging-fcm-${++fcmApps}`);
    // the HTTP/1.1 transport: the one that takes the app's httpAgent
    const m = getMessaging(app);
    if (rebased) m.enableLegacyHttpTransport();
    return (client = m);
  };
  return {
    configured,
    async send(m: PushMessage): Promise<PushResult> {
      if (!configured) return { provider: 'fcm', status: 'failed', error: 'FCM is not configured: set FCM_SERVICE_ACCOUNT_JSON' };
      try {
        const name = await messaging().send({ token: m.token, notification: { title: m.title, body: m.body }, data: m.data ?? {} });
        return { provider: 'fcm', status: 'sent', providerMessageId: name };
      } catch (err) {
        const code = (err as { code?: string }).code;
        return { provider: 'fcm', status: code === 'messaging/registration-token-not-registered' ? 'unregistered' : 'failed', error: providerMessage(err) };
      }
    },
  };
}

/** Expo tokens to Expo, every other token to FCM. */
export function realPush(cfg: PushConfig): PushProvider {
  const expo = expoPush(cfg);
  const fcm = fcmPush(cfg);
  const isExpo = (token: string) => /^Expo(nent)?PushToken\[.+\]$/.test(token);
  return {
    kind: 'real',
    async send(messages) {
      const out: PushResult[] = new Array(messages.length);
      const expoIdx = messages.map((m, i) => (isExpo(m.token) ? i : -1)).filter((i) => i >= 0);
      if (expoIdx.length) {
        const results = await expo.send(expoIdx.map((i) => messages[i]!));
        expoIdx.forEach((i, j) => (out[i] = results[j] ?? { provider: 'expo', status: 'failed', error: 'no ticket' }));
      }
      for (let i = 0; i < messages.length; i++) if (!out[i]) out[i] = await fcm.send(messages[i]!);
      return out;
    },
  };
}

export function buildPush(cfg: PushConfig): PushProvider {
  const real = cfg.enabled || Boolean(cfg.expoBaseUrl) || Boolean(cfg.fcmAccessToken || cfg.fcmServiceAccountJson);
  return real ? realPush(cfg) : outboxPush(cfg.dataDir);
}
