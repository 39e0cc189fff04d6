import type { ModuleDeps } from '@church/common';
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
  // One SDK client per church key, kept while the process runs (the SDKs pool their connections).
  const clients = new Map<string, PaymentProvider>();
  return {
    payments: {
      forGateway(keys: GatewayKeys) {
        const cacheKey = `${keys.provider}\n${keys.privateKey}\n${keys.publicKey ?? ''}\n${keys.webhookKey ?? ''}\n${keys.webhookId ?? ''}`;
        let provider = clients.get(cacheKey);
        if (!provider) {
          provider =
            keys.provider === 'stripe'
              ? stripeProvider(keys.privateKey, keys.webhookKey, { apiBase: config.STRIPE_API_BASE, timeoutMs: config.PAYMENT_TIMEOUT_MS, maxNetworkRetries: config.STRIPE_MAX_RETRIES })
              : paypalProvider({ clientId: keys.publicKey ?? '', clientSecret: keys.privateKey, webhookId: keys.webhookId ?? null, apiBase: config.PAYPAL_API_BASE, environment: config.PAYPAL_ENVIRONMENT, timeoutMs: config.PAYMENT_TIMEOUT_MS });
          if (clients.size > 1000) clients.clear();
          clients.set(cacheKey, provider);
        }
        return provider;
      },
    },
    captcha: createCaptcha({ provider: config.CAPTCHA_PROVIDER, secret: config.CAPTCHA_SECRET, url: config.CAPTCHA_VERIFY_URL, timeoutMs: config.PAYMENT_TIMEOUT_MS }),
  };
}
