import { keptPer, type ModuleDeps } from '@church/common';
import type { Config } from '../config';
import { createCaptcha, type CaptchaVerifier } from './captcha';
import type { GatewayKeys, PaymentProvider, PaymentProviders } from './payments';
import { paypalProvider } from './paypal';
import { stripeProvider } from './stripe';

export interface GivingProviders {
  payments: PaymentProviders;
  captcha: CaptchaVerifier;
}

/** The giving module's outside systems, built once from its config. */
export function buildProviders(deps: ModuleDeps<Config, undefined>): GivingProviders {
  const config = deps.config;
  // One SDK client per saved gateway and version, kept while the process runs (the SDKs pool their connections):
  // keyed by the gateway's id and last change, so no secret is ever a key, and a changed gateway gets a new one.
  const clients = keptPer<object, PaymentProvider>({ max: 1000 })(deps);
  const build = (keys: GatewayKeys): PaymentProvider =>
    keys.provider === 'stripe'
      ? stripeProvider(keys.privateKey, keys.webhookKey, { apiBase: config.STRIPE_API_BASE, timeoutMs: config.PAYMENT_TIMEOUT_MS, maxNetworkRetries: config.STRIPE_MAX_RETRIES })
      : paypalProvider({ clientId: keys.publicKey ?? '', clientSecret: keys.privateKey, webhookId: keys.webhookId ?? null, apiBase: config.PAYPAL_API_BASE, environment: config.PAYPAL_ENVIRONMENT, timeoutMs: config.PAYMENT_TIMEOUT_MS });
  return {
    payments: {
      forGateway(keys: GatewayKeys) {
        if (!keys.version) return build(keys);
        let provider = clients.get(keys.version);
        if (!provider) clients.set(keys.version, (provider = build(keys)));
        return provider;
      },
    },
    captcha: createCaptcha({ provider: config.CAPTCHA_PROVIDER, secret: config.CAPTCHA_SECRET, url: config.CAPTCHA_VERIFY_URL, timeoutMs: config.PAYMENT_TIMEOUT_MS }),
  };
}
