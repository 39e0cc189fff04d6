import twilio from 'twilio';
import type { RequestOptions } from 'twilio/lib/base/RequestClient';
import { providerMessage, writeOutbox } from '@church/common';

/** A church's SMS account with its secret opened. */
export interface SmsAccount {
  id: string;
  provider: string;
  apiKey: string;
  apiSecret: string;
  fromNumber: string;
}

export interface SmsSent {
  provider: string;
  providerMessageId: string;
  status: string;
}

/** A refused or failed send; `transient` ones (rate limits, outages) are retried by the job. */
export class SmsError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
    readonly code?: string | number,
  ) {
    super(message);
  }
}

/** An account's prepaid balance as the provider reports it (Twilio: `Balance.json`, a decimal text and its currency). */
export interface SmsBalance {
  balance: string;
  currency: string;
}

export interface SmsProvider {
  /** `account` is the church's provider; without one the embedded default writes to the outbox */
  send(account: SmsAccount | null, to: string, body: string, statusCallback?: string): Promise<SmsSent>;
  /** the account's balance, from the provider's API */
  balance(account: SmsAccount): Promise<SmsBalance>;
}

/** The providers this server sends through (`SmsAccount.provider`). */
export const SMS_PROVIDERS = new Set(['twilio']);

export interface SmsConfig {
  dataDir: string;
  /** Twilio's API base URL (tests aim the SDK at a loopback fake) */
  twilioBaseUrl?: string;
  /** no account and not production: write to the outbox */
  outboxWithoutAccount: boolean;
}

/** Twilio's RequestClient with every request sent to another base address (same path and query). */
class RebasedRequestClient extends twilio.RequestClient {
  constructor(private readonly base: string) {
    super({ timeout: 15_000 });
  }
  override request<T>(opts: RequestOptions<T>) {
    const original = new URL(opts.uri);
    const base = new URL(this.base);
    original.protocol = base.protocol;
    original.host = base.host;
    return super.request<T>({ ...opts, uri: original.toString() });
  }
}

/** An SDK error as an `SmsError`: rate limits, outages and network failures are transient. */
function smsError(err: unknown): SmsError {
  const e = err as { status?: number; code?: number | string };
  const transient = e.status === undefined || e.status === 429 || e.status >= 500;
  return new SmsError(providerMessage(err), transient, e.code);
}

/** Twilio through its SDK; no account → the outbox (development) or a refusal. */
export function buildSms(cfg: SmsConfig): SmsProvider {
  const clients = new Map<string, ReturnType<typeof twilio>>();
  const clientFor = (account: SmsAccount) => {
    const key = `${account.apiKey}:${account.apiSecret}`;
    let client = clients.get(key);
    if (!client) {
      client = twilio(account.apiKey, account.apiSecret, cfg.twilioBaseUrl ? { httpClient: new RebasedRequestClient(cfg.twilioBaseUrl) } : { timeout: 15_000 });
      clients.set(key, client);
    }
    return client;
  };
  return {
    async send(account, to, body, statusCallback) {
      if (!account) {
        if (!cfg.outboxWithoutAccount) throw new SmsError('No texting provider is configured for this church', false, 'not_configured');
        const id = await writeOutbox(cfg.dataDir, 'sms', { to, body });
        return { provider: 'outbox', providerMessageId: id, status: 'sent' };
      }
      if (account.provider !== 'twilio') throw new SmsError(`Texting provider ${account.provider} is not supported`, false, 'unsupported');
      try {
        const msg = await clientFor(account).messages.create({ to, from: account.fromNumber, body, ...(statusCallback ? { statusCallback } : {}) });
        return { provider: 'twilio', providerMessageId: msg.sid, status: msg.status ?? 'queued' };
      } catch (err) {
        throw smsError(err);
      }
    },
    async balance(account) {
      if (account.provider !== 'twilio') throw new SmsError(`Texting provider ${account.provider} is not supported`, false, 'unsupported');
      try {
        const { balance, currency } = await clientFor(account).balance.fetch();
        return { balance, currency };
      } catch (err) {
        throw smsError(err);
      }
    },
  };
}
