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

  const person = { id: 'p1', displayName: 'Ann Lee', firstName: 'Ann', lastName: 'Lee', photo: null };
  const client = () => refuseCallsInTransactions(fakeInternal({ 'POST /membership/internal/people/basic': () => [person] }));

  it('is refused inside the transaction, and made before or after it', async () => {
    const internal = client();
    await expect(internal.post('membership', '/membership/internal/people/basic', {})).resolves.toEqual([person]);
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        return internal.post('membership', '/membership/internal/people/basic', {});
      }),
    ).rejects.toThrow(/made while a database transaction is open/);
    await expect(internal.request('membership', 'POST', '/membership/internal/people/basic', {})).resolves.toEqual([person]);
  });

  it('is allowed in work a transaction set going that runs outside it (a job after the commit)', async () => {
    const internal = client();
    let later: Promise<unknown> | undefined;
    await database.db.transaction(async () => {
      later = new Promise((resolve) => setTimeout(resolve, 5)).then(() => outsideTransaction(() => internal.post('membership', '/membership/internal/people/basic', {})));
    });
    await expect(later).resolves.toEqual([person]);
  });
});

// A fake stands for another module: an answer the route's contract refuses fails the test that relies on it.
describe('a fake of another module', () => {
  it('answers what its contract allows, and fails loudly when it drifts', async () => {
    const drifted = fakeInternal({ 'POST /membership/internal/people/basic': () => [{ id: 'p1' }] });
    await expect(drifted.post('membership', '/membership/internal/people/basic', {})).rejects.toThrow(/breaks its contract.*displayName/s);
    // a route no contract names is answered as the fake says
    const free = fakeInternal({ 'POST /membership/internal/not-a-contract': () => ({ anything: 1 }) });
    await expect(free.post('membership', '/membership/internal/not-a-contract', {})).resolves.toEqual({ anything: 1 });
  });
});
