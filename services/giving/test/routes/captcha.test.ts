import { call, fakeServer } from '@church/common/testing';
import { makeChurch, makeStripeGateway, useGiving } from '../setup';

// The captcha of the anonymous flows with a verifier configured (payments.test.ts: without one).

/**
 * A loopback siteverify for this file (Turnstile and reCAPTCHA answer the same shape): listening before the app
 * starts (its `beforeAll` is registered before `useGiving`'s), closed after the file's tests.
 */
function useVerifier() {
  let server: Awaited<ReturnType<typeof fakeServer>> | undefined;
  beforeAll(async () => {
    server = await fakeServer((req) => ({ body: req.form.get('response') === 'good' && req.form.get('secret') === 'captcha-secret' ? { success: true } : { success: false, 'error-codes': ['invalid-input-response'] } }));
  });
  afterAll(() => server?.close());
  return { config: () => ({ CAPTCHA_PROVIDER: 'turnstile', CAPTCHA_SECRET: 'captcha-secret', CAPTCHA_VERIFY_URL: `${server!.url}/siteverify` }) };
}

const verifier = useVerifier();
const t = useGiving({ config: verifier.config });

describe('captcha with a verifier', () => {
  it('verifies against siteverify and gates the anonymous setup intent with the pass it answers', async () => {
    const c = makeChurch();
    await makeStripeGateway(t, c.token(['Settings.Edit']));
    const bad = await call(t.app, 'POST', '/giving/donate/captcha-verify', { body: { token: 'bad' } });
    expect(bad.json()).toEqual({ success: false, errors: ['invalid-input-response'] });
    const good = await call(t.app, 'POST', '/giving/donate/captcha-verify', { body: { token: 'good' } });
    expect(good.json()).toMatchObject({ success: true });
    const pass = good.json().verificationToken;
    const refused = await call(t.app, 'POST', '/giving/paymentmethods/ach-setup-intent-anon', { body: { churchId: c.churchId, email: 'guest@example.test', verificationToken: 'forged.pass' } });
    expect(refused.statusCode).toBe(400);
    const si = await call(t.app, 'POST', '/giving/paymentmethods/ach-setup-intent-anon', { body: { churchId: c.churchId, email: 'guest@example.test', name: 'Guest', verificationToken: pass } });
    expect(si.statusCode).toBe(200);
    expect(si.json().clientSecret).toMatch(/^seti_/);
  });
});
