import { createHashQueue, hashPassword, PasswordQueueFull, verifyPassword, temporaryPassword } from '../src/password';

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

describe('the hashing queue', () => {
  const work = (ms: number) => () => new Promise<string>((r) => setTimeout(() => r('done'), ms));

  it('serves a burst whose wait stays within the bound, refusing none', async () => {
    const queue = createHashQueue(1, 2_000);
    const results = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => queue.run(work(5), `account-${i}`)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  });

  it('refuses, with Retry-After, a flood against one account past the bound, and still serves other accounts in turn', async () => {
    const queue = createHashQueue(1, 300);
    const order: string[] = [];
    const run = (key: string) =>
      queue.run(async () => {
        order.push(key);
        return work(10)();
      }, key);
    const flood = Array.from({ length: 200 }, () => run('victim').catch((err: unknown) => err));
    await new Promise((r) => setTimeout(r, 20));
    const others = Array.from({ length: 5 }, (_, i) => run(`member-${i}`));
    const settled = await Promise.all(flood);
    const refused = settled.filter((r) => r instanceof PasswordQueueFull) as PasswordQueueFull[];
    expect(refused.length).toBeGreaterThan(100);
    expect(refused[0]!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    await expect(Promise.all(others)).resolves.toHaveLength(5);
    // Each other account went ahead of the flood's queue rather than behind all of it.
    const lastMember = Math.max(...order.map((k, i) => (k.startsWith('member-') ? i : -1)));
    expect(lastMember).toBeLessThan(order.length - 1);
    expect(order.slice(0, lastMember + 1).filter((k) => k === 'victim').length).toBeLessThanOrEqual(10);
  });
});
