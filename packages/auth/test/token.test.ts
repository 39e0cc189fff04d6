import { createTokenSigner, createTokenVerifier } from '../src';

const SECRET = 'token-test-secret-token-test-secret-0123';
const claims = { id: 'u1', email: 'u1@example.org', churchId: 'c1', personId: 'p1', permissions: { MembershipApi: ['People.View'] }, leaderGroupIds: [] };

/** The token with its payload replaced, its signature kept. */
function withPayload(token: string, payload: object): string {
  const [header, , signature] = token.split('.');
  return `${header}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
}

describe('token verification with its cache', () => {
  afterEach(() => jest.useRealTimers());

  it('answers the claims, again from the cache', () => {
    const verify = createTokenVerifier(SECRET);
    const token = createTokenSigner(SECRET)(claims);
    expect(verify(token)).toMatchObject({ id: 'u1', churchId: 'c1', permissions: { MembershipApi: ['People.View'] } });
    expect(verify(token)).toMatchObject({ id: 'u1', churchId: 'c1' });
  });

  it('refuses a changed payload under a cached token’s signature', () => {
    const verify = createTokenVerifier(SECRET);
    const token = createTokenSigner(SECRET)(claims);
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    verify(token);
    expect(() => verify(withPayload(token, { ...payload, churchId: 'c2' }))).toThrow();
  });

  it('refuses a cached token’s header and payload under another signature', () => {
    const verify = createTokenVerifier(SECRET);
    const token = createTokenSigner(SECRET)(claims);
    verify(token);
    const forged = `${token.slice(0, token.lastIndexOf('.'))}.${Buffer.alloc(32, 7).toString('base64url')}`;
    expect(() => verify(forged)).toThrow();
    expect(verify(token)).toMatchObject({ id: 'u1' });
  });

  it('refuses a token signed with another secret', () => {
    const verify = createTokenVerifier(SECRET);
    expect(() => verify(createTokenSigner(`${SECRET}-other`)(claims))).toThrow();
  });

  it('refuses a cached token once it has expired', () => {
    jest.useFakeTimers({ now: new Date('2026-11-25T10:00:00Z') });
    const verify = createTokenVerifier(SECRET);
    const token = createTokenSigner(SECRET)(claims, 60);
    expect(verify(token)).toMatchObject({ id: 'u1' });
    jest.setSystemTime(new Date('2026-11-25T10:01:01Z'));
    expect(() => verify(token)).toThrow(/expired/i);
  });
});
