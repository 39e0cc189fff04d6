import { randomUUID } from 'node:crypto';
import { peopleCache, WHOLE_AFTER } from '../../src/domain/people';
import { fakeMembership } from '../setup';

// The people check-in keeps of membership (`peopleCache`), asked of a fake membership directly: what it keeps,
// for how long, and what it asks. What a check-in does with them is tested through the routes
// (test/routes/checkin-people.test.ts).

describe('the kept people', () => {
  /** A cache of its own, a membership of its own, and a church with a household id to use. */
  const freshCache = () => ({ cache: peopleCache(), fake: fakeMembership(), churchId: randomUUID(), home: randomUUID() });

  it('are kept while the church’s people are unchanged in membership; any change there drops them', async () => {
    const { cache, fake, churchId, home } = freshCache();
    const [a, b] = [fake.add(churchId, home), fake.add(churchId, home)];
    const stranger = randomUUID();
    expect(await cache.households(fake.internal, churchId, [a, b, stranger])).toEqual(new Map([[a, home], [b, home]]));
    expect(await cache.households(fake.internal, churchId, [a, b, stranger, a])).toEqual(new Map([[a, home], [b, home]]));
    expect(fake.factCalls()).toBe(1);
    expect(fake.probeCalls()).toBe(2);
    // another church's change keeps this church's people
    fake.add(randomUUID());
    expect(await cache.households(fake.internal, churchId, [a, b])).toEqual(new Map([[a, home], [b, home]]));
    expect(fake.factCalls()).toBe(1);
    // a removal and a household move are seen at once
    fake.remove(b);
    fake.move(a, null);
    expect(await cache.households(fake.internal, churchId, [a, b])).toEqual(new Map([[a, null]]));
    expect(fake.factCalls()).toBe(2);
    // another church's kept people are not this church's
    expect(await cache.households(fake.internal, randomUUID(), [a])).toEqual(new Map());
  });

  it('loads the church’s whole list once for a version after WHOLE_AFTER ids were asked one call at a time', async () => {
    const { cache, fake, churchId, home } = freshCache();
    const everyone = Array.from({ length: WHOLE_AFTER + 50 }, () => fake.add(churchId, home));
    const first = everyone.slice(0, WHOLE_AFTER - 10);
    expect((await cache.households(fake.internal, churchId, first)).size).toBe(first.length);
    expect(fake.factCalls()).toBe(1);
    // past WHOLE_AFTER: the whole list, asked without ids
    const next = [...everyone.slice(WHOLE_AFTER - 10, WHOLE_AFTER + 10), randomUUID()];
    expect([...(await cache.households(fake.internal, churchId, next)).keys()]).toEqual(next.slice(0, -1));
    expect(fake.factCalls()).toBe(2);
    expect(fake.internal.calls.at(-1)!.body).toEqual({ churchId });
    // everyone is kept, and any other id is no person of the church: no more calls at this version
    const rest = [...everyone.slice(WHOLE_AFTER + 10), randomUUID(), randomUUID()];
    expect((await cache.households(fake.internal, churchId, rest)).size).toBe(rest.length - 2);
    expect(fake.factCalls()).toBe(2);
    // a change in membership: the new version starts again one call at a time, and sees the removal
    fake.remove(everyone[0]!);
    expect(await cache.households(fake.internal, churchId, everyone.slice(0, 2))).toEqual(new Map([[everyone[1]!, home]]));
    expect(fake.factCalls()).toBe(3);
    expect((fake.internal.calls.at(-1)!.body as { ids: string[] }).ids).toEqual(everyone.slice(0, 2));
  });

  it('asks for the version once for the concurrent requests of a church', async () => {
    const { cache, fake, churchId } = freshCache();
    const a = fake.add(churchId);
    await cache.households(fake.internal, churchId, [a]);
    const probes = fake.probeCalls();
    const answers = await Promise.all(Array.from({ length: 5 }, () => cache.households(fake.internal, churchId, [a])));
    for (const answer of answers) expect([...answer.keys()]).toEqual([a]);
    expect(fake.probeCalls()).toBe(probes + 1);
    expect(fake.factCalls()).toBe(1);
  });

  it('takes a version asked for within maxAgeMs as current for the people it keeps as live, and asks membership for any other id', async () => {
    const { cache, fake, churchId, home } = freshCache();
    const [a, b] = [fake.add(churchId, home), fake.add(churchId, home)];
    expect(await cache.households(fake.internal, churchId, [a, b], 60_000)).toEqual(new Map([[a, home], [b, home]]));
    const probes = fake.probeCalls();
    const asked = fake.factCalls();
    // within the window, kept people cost no call, even after a change in membership (the window's staleness)
    fake.remove(b);
    expect(await cache.households(fake.internal, churchId, [a, b], 60_000)).toEqual(new Map([[a, home], [b, home]]));
    expect(fake.probeCalls()).toBe(probes);
    expect(fake.factCalls()).toBe(asked);
    // an id not kept as live is asked for every time: a refusal is membership's answer of now...
    const stranger = randomUUID();
    expect(await cache.households(fake.internal, churchId, [a, stranger], 60_000)).toEqual(new Map([[a, home]]));
    expect(fake.factCalls()).toBe(asked + 1);
    expect((fake.internal.calls.at(-1)!.body as { ids: string[] }).ids).toEqual([stranger]);
    // ...so an id refused a moment ago and created in membership since is accepted at once
    fake.add(churchId, null, stranger);
    expect(await cache.households(fake.internal, churchId, [stranger], 60_000)).toEqual(new Map([[stranger, null]]));
    expect(fake.probeCalls()).toBe(probes);
    // without a window (the household rule) the version is asked, and the removal is seen
    expect(await cache.households(fake.internal, churchId, [a, b])).toEqual(new Map([[a, home]]));
    expect(fake.probeCalls()).toBe(probes + 1);
    // a window that has passed asks again
    fake.remove(a);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await cache.households(fake.internal, churchId, [a], 20)).toEqual(new Map());
    expect(fake.probeCalls()).toBe(probes + 2);
  });

  it('answers 502 when the version cannot be asked, even for kept people', async () => {
    const { cache, fake, churchId } = freshCache();
    const a = fake.add(churchId);
    await cache.households(fake.internal, churchId, [a]);
    fake.down = true;
    await expect(cache.households(fake.internal, churchId, [a])).rejects.toMatchObject({ statusCode: 502, errors: [{ msg: 'membership is unreachable' }] });
    fake.down = false;
    expect(await cache.households(fake.internal, churchId, [a])).toEqual(new Map([[a, expect.any(String)]]));
  });
});
