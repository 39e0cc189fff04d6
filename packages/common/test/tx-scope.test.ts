import { sql } from 'drizzle-orm';
import { outsideTransaction, refuseCallsInTransactions } from '../src/tx-scope';
import { fakeInternal, testDatabase } from '../src/testing';
import type { Database } from '../src/db';

// The rule "no module calls another while it holds a transaction open", as the tests of every module enforce it.
describe('an internal call while a transaction is open', () => {
  let database: Database;
  beforeAll(async () => {
    database = await testDatabase('doing', []);
  });
  afterAll(async () => database.close());

  const client = () => refuseCallsInTransactions(fakeInternal({ 'POST /membership/internal/people/basic': () => [{ id: 'p1' }] }));

  it('is refused inside the transaction, and made before or after it', async () => {
    const internal = client();
    await expect(internal.post('membership', '/membership/internal/people/basic', {})).resolves.toEqual([{ id: 'p1' }]);
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        return internal.post('membership', '/membership/internal/people/basic', {});
      }),
    ).rejects.toThrow(/made while a database transaction is open/);
    await expect(internal.request('membership', 'POST', '/membership/internal/people/basic', {})).resolves.toEqual([{ id: 'p1' }]);
  });

  it('is allowed in work a transaction set going that runs outside it (a job after the commit)', async () => {
    const internal = client();
    let later: Promise<unknown> | undefined;
    await database.db.transaction(async () => {
      later = new Promise((resolve) => setTimeout(resolve, 5)).then(() => outsideTransaction(() => internal.post('membership', '/membership/internal/people/basic', {})));
    });
    await expect(later).resolves.toEqual([{ id: 'p1' }]);
  });
});
