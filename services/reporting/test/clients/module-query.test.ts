import { fakeInternal } from '@church/common/testing';
import { createModuleQuery } from '../../src/clients/module-query';

/** An owner whose answers the test releases one call at a time, to see who shares which run. */
function slowOwner() {
  const pending: Array<{ body: { sql: string; params: unknown[] }; release: (rows: unknown[]) => void; fail: (err: Error) => void }> = [];
  let served = 0;
  const internal = fakeInternal({
    'POST /attendance/internal/query': (body: { sql: string; params: unknown[] }) =>
      new Promise((resolve, reject) => {
        pending.push({ body, release: (rows) => resolve({ rows }), fail: reject });
      }),
  });
  /** answers the oldest call still open with `[{ n: <how many calls were answered before> }]` */
  const releaseNext = async () => {
    await waitFor(() => pending.length > 0);
    pending.shift()!.release([{ n: served++ }]);
  };
  return { internal, pending, releaseNext };
}

async function waitFor(test: () => boolean) {
  for (let i = 0; i < 200 && !test(); i++) await new Promise((r) => setImmediate(r));
  expect(test()).toBe(true);
}

const SQL = 'select count(*)::int as n from visit_counts where church_id = $1::uuid';
const church = '11111111-1111-4111-8111-111111111111';

describe('createModuleQuery: identical statements share a run', () => {
  it('sends one query for the callers that ask together, and each gets the rows', async () => {
    const owner = slowOwner();
    const source = createModuleQuery({}, owner.internal);
    const runs = [0, 1, 2].map(() => source.run('attendance', SQL, [church], 1000));
    await owner.releaseNext();
    expect(await Promise.all(runs)).toEqual([[{ n: 0 }], [{ n: 0 }], [{ n: 0 }]]);
    expect(owner.internal.calls).toHaveLength(1);
    expect(owner.internal.calls[0]!.body).toEqual({ sql: SQL, params: [church], timeoutMs: 1000 });
  });

  it('never answers a caller from a query that was already out when it asked: it waits for the next one', async () => {
    const owner = slowOwner();
    const source = createModuleQuery({}, owner.internal);
    const early = source.run('attendance', SQL, [church], 1000);
    await waitFor(() => owner.pending.length === 1);
    const late = [source.run('attendance', SQL, [church], 1000), source.run('attendance', SQL, [church], 1000)];
    await owner.releaseNext();
    expect(await early).toEqual([{ n: 0 }]);
    // the two who came while the first was out share the second query
    await owner.releaseNext();
    expect(await Promise.all(late)).toEqual([[{ n: 1 }], [{ n: 1 }]]);
    expect(owner.internal.calls).toHaveLength(2);
  });

  it('runs different values, statements or time limits apart', async () => {
    const owner = slowOwner();
    const source = createModuleQuery({}, owner.internal);
    const other = '22222222-2222-4222-8222-222222222222';
    const runs = [
      source.run('attendance', SQL, [church], 1000),
      source.run('attendance', SQL, [other], 1000),
      source.run('attendance', `${SQL} and true`, [church], 1000),
      source.run('attendance', SQL, [church], 2000),
    ];
    for (let i = 0; i < 4; i++) await owner.releaseNext();
    await Promise.all(runs);
    expect(owner.internal.calls.map((c) => c.body)).toEqual([
      { sql: SQL, params: [church], timeoutMs: 1000 },
      { sql: SQL, params: [other], timeoutMs: 1000 },
      { sql: `${SQL} and true`, params: [church], timeoutMs: 1000 },
      { sql: SQL, params: [church], timeoutMs: 2000 },
    ]);
  });

  it('fails every caller of a failed run, and the next caller tries again', async () => {
    const owner = slowOwner();
    const source = createModuleQuery({}, owner.internal);
    const runs = [0, 1].map(() => source.run('attendance', SQL, [church], 1000).catch((err: Error) => err.message));
    await waitFor(() => owner.pending.length === 1);
    owner.pending.shift()!.fail(new Error('owner down'));
    expect(await Promise.all(runs)).toEqual(['owner down', 'owner down']);
    const again = source.run('attendance', SQL, [church], 1000);
    await owner.releaseNext();
    expect(await again).toEqual([{ n: 0 }]);
    expect(owner.internal.calls).toHaveLength(2);
  });
});
