import path from 'node:path';
import type { ModuleDeps } from '@church/common';
import type { Config } from '../config';
import { Realtime } from '../realtime/hub';
import { buildPush, type PushProvider } from './push';
import { buildSms, type SmsProvider } from './sms';
import { buildWebPush, type WebPushProvider } from './web-push';

export interface MessagingProviders {
  realtime: Realtime;
  push: PushProvider;
  sms: SmsProvider;
  webPush: WebPushProvider;
}

const quietLog = {
  warn: (obj: object, msg: string) => console.warn(msg, obj),
  error: (obj: object, msg: string) => console.error(msg, obj),
};

/** The module's outside systems, chosen once from config. */
export function buildProviders(deps: ModuleDeps<Config, undefined>): MessagingProviders {
  const c = deps.config;
  const dataDir = path.resolve(c.DATA_DIR);
  return {
    realtime: new Realtime({
      redisUrl: c.REALTIME_REDIS_URL ?? c.REDIS_URL,
      heartbeatSeconds: c.REALTIME_HEARTBEAT_SECONDS,
      flushMs: c.REALTIME_FLUSH_MS,
      prefix: c.REALTIME_PREFIX,
      streamMaxLen: c.REALTIME_STREAM_MAXLEN,
      log: c.LOG_LEVEL === 'silent' ? { warn: () => undefined, error: () => undefined } : quietLog,
    }),
    push: buildPush({
      dataDir,
      enabled: c.PUSH_ENABLED,
      expoAccessToken: c.EXPO_ACCESS_TOKEN,
      expoBaseUrl: c.EXPO_BASE_URL,
      fcmBaseUrl: c.FCM_BASE_URL,
      fcmProjectId: c.FCM_PROJECT_ID,
      fcmAccessToken: c.FCM_ACCESS_TOKEN,
      fcmServiceAccountJson: c.FCM_SERVICE_ACCOUNT_JSON,
    }),
    webPush: buildWebPush({ publicKey: c.WEBPUSH_PUBLIC_KEY, privateKey: c.WEBPUSH_PRIVATE_KEY, subject: c.WEBPUSH_SUBJECT, allowPrivate: c.OUTBOUND_ALLOW_PRIVATE }),
    sms: buildSms({ dataDir, twilioBaseUrl: c.TWILIO_BASE_URL, outboxWithoutAccount: c.NODE_ENV !== 'production' }),
  };
}
