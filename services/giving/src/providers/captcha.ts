import { notConfigured, providerFailed, providerMessage } from '@church/common';

/** Captcha verification for the anonymous flows (reCAPTCHA or Turnstile `siteverify`, address overridable). */
export interface CaptchaVerifier {
  readonly configured: boolean;
  verify(token: string, remoteIp?: string): Promise<{ success: boolean; errors: string[] }>;
}

const DEFAULT_URLS = {
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
} as const;

export function createCaptcha(opts: { provider?: 'recaptcha' | 'turnstile'; secret?: string; url?: string; timeoutMs: number }): CaptchaVerifier {
  if (!opts.secret) {
    return {
      configured: false,
      async verify() {
        throw notConfigured('Captcha verification', 'CAPTCHA_SECRET');
      },
    };
  }
  const url = opts.url ?? DEFAULT_URLS[opts.provider ?? 'recaptcha'];
  return {
    configured: true,
    async verify(token, remoteIp) {
      // Both verifiers take the same form: secret, response and the optional client address.
      const form = new URLSearchParams({ secret: opts.secret!, response: token, ...(remoteIp ? { remoteip: remoteIp } : {}) });
      let res: Response;
      try {
        res = await fetch(url, { method: 'POST', body: form, signal: AbortSignal.timeout(opts.timeoutMs) });
      } catch (err) {
        throw providerFailed('Captcha verification', providerMessage(err));
      }
      if (!res.ok) throw providerFailed('Captcha verification', `HTTP ${res.status}`);
      const body = (await res.json().catch(() => null)) as { success?: boolean; 'error-codes'?: string[] } | null;
      if (!body || typeof body.success !== 'boolean') throw providerFailed('Captcha verification', 'unexpected answer');
      return { success: body.success, errors: body['error-codes'] ?? [] };
    },
  };
}
