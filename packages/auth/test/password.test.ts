import { hashPassword, verifyPassword, temporaryPassword } from '../src/password';

describe('passwords', () => {
  it('hashes with a salt and verifies only the right password', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).toMatch(/^\$argon2id\$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword(a, 'correct horse')).toBe(true);
    expect(await verifyPassword(a, 'wrong horse')).toBe(false);
  });

  it('answers false for a missing or malformed stored hash instead of throwing', async () => {
    expect(await verifyPassword(null, 'x')).toBe(false);
    expect(await verifyPassword('not-a-hash', 'x')).toBe(false);
  });

  it('keeps the event loop free while many hashes queue', async () => {
    const stored = await hashPassword('pw');
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const results = await Promise.all(Array.from({ length: 8 }, () => verifyPassword(stored, 'pw')));
    clearInterval(timer);
    expect(results.every(Boolean)).toBe(true);
    // Eight verifications take tens of milliseconds; a blocked loop would not have ticked meanwhile.
    expect(ticks).toBeGreaterThan(2);
  });

  it('makes temporary passwords long and random', () => {
    const p = temporaryPassword();
    expect(p.length).toBeGreaterThanOrEqual(16);
    expect(temporaryPassword()).not.toBe(p);
  });
});
