import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { Pool } from 'pg';
import { hashPassword, verifyPassword } from '@church/auth';

/**
 * A ceiling: the fastest a bare Fastify can answer on this machine, alone in its process like the fleet.
 * `hello`: a constant JSON body. `pg`: one church-scoped primary-key query through a `pg` Pool (the same pool
 * size the services use), i.e. what any database-backed route costs before our own code runs. `argon2`: one
 * argon2id verification per request through @church/auth, the bound on login throughput. `body`: the constant
 * bytes of the file `BENCH_CEILING_BODY` as JSON at any path, the bound on a large answer (`gateway-bound.ts`).
 * Env: BENCH_CEILING=hello|pg|argon2|body, BENCH_CEILING_DB, BENCH_CEILING_CHURCH, BENCH_CEILING_BODY.
 * Sends/prints `{type:'ready', url}`.
 */
async function main() {
  const mode = process.env.BENCH_CEILING ?? 'hello';
  const app = Fastify({ logger: false });
  let pool: Pool | undefined;
  if (mode === 'pg') {
    pool = new Pool({ connectionString: process.env.BENCH_CEILING_DB, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
    const churchId = process.env.BENCH_CEILING_CHURCH;
    app.get('/ceiling', async () => {
      const { rows } = await pool!.query('select id, name from churches where id = $1', [churchId]);
      return rows[0];
    });
  } else if (mode === 'argon2') {
    const stored = await hashPassword('Ceiling-Password-1');
    app.get('/ceiling', async () => ({ ok: await verifyPassword(stored, 'Ceiling-Password-1') }));
  } else if (mode === 'body') {
    const body = readFileSync(process.env.BENCH_CEILING_BODY!);
    app.get('/*', (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
  } else {
    app.get('/ceiling', async () => ({ hello: 'world' }));
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  process.stdout.write(`${JSON.stringify({ bench: 'ready', url })}\n`);
  process.send?.({ type: 'ready', url });
  const close = async () => {
    await app.close();
    await pool?.end();
    process.exit(0);
  };
  process.on('SIGTERM', close);
  process.on('disconnect', close);
  process.on('message', (m: { type?: string }) => m.type === 'close' && close());
}

main().catch((err) => {
  process.stderr.write(`[ceiling] failed: ${String(err)}\n`);
  process.exit(1);
});
