import { createServer, type Server } from 'node:http';
import { checkPublicUrl, fetchOutbound, isPublicAddress, OUTBOUND_FAILED, readOutbound } from '../src/outbound';
import { HttpError } from '../src/errors';

/** Runs `fn` and answers the HttpError it throws (status and body as the error handler would write it). */
async function refusal(fn: () => Promise<unknown>): Promise<{ status: number; msg: string; param?: string }> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof HttpError) return { status: err.statusCode, msg: err.errors[0]!.msg, param: err.errors[0]!.param };
    throw err;
  }
  throw new Error('no refusal');
}

describe('isPublicAddress', () => {
  it('takes public unicast addresses only, IPv4-mapped IPv6 unwrapped first', () => {
    for (const ok of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect([ok, isPublicAddress(ok)]).toEqual([ok, true]);
    const refused = [
      '127.0.0.1', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', // loopback, also written as mapped IPv6
      '169.254.169.254', '::ffff:a9fe:a9fe', // link-local: the cloud metadata address
      '10.0.0.1', '172.16.5.4', '192.168.1.1', '100.64.0.1', '198.18.0.1', '240.0.0.1', '224.0.0.1', '0.0.0.0',
      'fd00::1', 'fe80::1', '64:ff9b::7f00:1', '2002:7f00:1::', 'not an address',
    ];
    for (const bad of refused) expect([bad, isPublicAddress(bad)]).toEqual([bad, false]);
  });
});

describe('checkPublicUrl: an address saved for later, by the rule delivery applies', () => {
  // A resolver standing in for DNS: what the names of this test resolve to.
  const names: Record<string, string[]> = { 'hooks.example.org': ['93.184.216.34'], 'ip6-localhost': ['::1'], 'inside.example.org': ['93.184.216.34', '10.1.2.3'] };
  const resolve = async (host: string) => names[host] ?? Promise.reject(new Error('ENOTFOUND'));

  it('takes public addresses and names that resolve only to public addresses, or not at all now', async () => {
    for (const ok of ['https://hooks.example.org/in', 'http://8.8.8.8/x', 'https://[2606:4700:4700::1111]/', 'https://unknown.example.net/hook', 'https://deadbeef.example.com/']) {
      expect((await checkPublicUrl(ok, { resolve })).toString()).toBe(new URL(ok).toString());
    }
  });

  it('refuses what delivery would refuse, however it is spelled', async () => {
    const refused = [
      'https://localhost/', 'https://localhost./', 'https://app.localhost/', 'https://ip6-localhost/', 'http://127.0.0.1/', 'http://[::1]/',
      'http://[::ffff:127.0.0.1]/', 'https://10.0.0.1.nip.io/', 'https://127-0-0-1.sslip.io/', 'https://app.192.168.1.1.nip.io/', 'https://7f000001.nip.io/',
      'https://inside.example.org/', 'https://intranet/',
    ];
    for (const url of refused) expect([url, await refusal(() => checkPublicUrl(url, { resolve, param: 'url' }))]).toEqual([url, { status: 400, msg: 'must be a public address', param: 'url' }]);
    expect(await refusal(() => checkPublicUrl('ftp://hooks.example.org/', { resolve }))).toMatchObject({ status: 400, param: 'url' });
    expect(await refusal(() => checkPublicUrl('https://u:p@hooks.example.org/', { resolve }))).toMatchObject({ status: 400 });
    expect(await refusal(() => checkPublicUrl('http://hooks.example.org/', { resolve, httpsOnly: true, param: 'subscription.endpoint' }))).toMatchObject({ status: 400, param: 'subscription.endpoint' });
  });

  it('lets development and tests name a fake on loopback', async () => {
    expect((await checkPublicUrl('http://127.0.0.1:4000/hook', { allowPrivate: true })).port).toBe('4000');
  });
});

describe('fetchOutbound', () => {
  let server: Server;
  let port = 0;
  const hits: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url!);
      if (req.url === '/hop') return void res.writeHead(302, { location: `http://127.0.0.2:${port}/inside` }).end();
      if (req.url === '/missing') return void res.writeHead(404).end('nothing here');
      if (req.url === '/big') return void res.end('x'.repeat(5000));
      res.end('hello');
    });
    await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  beforeEach(() => (hits.length = 0));

  it('refuses loopback however it is written, before connecting, with a 400 naming the field', async () => {
    for (const url of [`http://127.0.0.1:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, `http://[::ffff:7f00:1]:${port}/`, `http://[::1]:${port}/`, `http://localhost:${port}/`, 'http://[::ffff:a9fe:a9fe]/latest/meta-data']) {
      expect(await refusal(() => fetchOutbound(url, { param: 'url', location: 'query' }))).toEqual({ status: 400, msg: 'must be a public http(s) address', param: 'url' });
    }
    expect(hits).toEqual([]);
  });

  it('refuses other schemes and addresses with credentials', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.org/', 'http://user:pass@example.org/', 'not a url']) {
      expect((await refusal(() => fetchOutbound(url))).status).toBe(400);
    }
  });

  it('follows a redirect only to an address the rule allows', async () => {
    const onlyFirstLoopback = (address: string) => address === '127.0.0.1';
    expect((await fetchOutbound(`http://127.0.0.1:${port}/page`, { allowAddress: onlyFirstLoopback })).body).toBe('hello');
    // 127.0.0.2 is loopback too, and refused by this rule: the redirect is not followed.
    expect((await refusal(() => fetchOutbound(`http://127.0.0.1:${port}/hop`, { allowAddress: onlyFirstLoopback }))).status).toBe(400);
    expect(hits).toEqual(['/page', '/hop']);
  });

  it('answers one text for whatever went wrong at the far end', async () => {
    const any = () => true;
    expect(await refusal(() => readOutbound(`http://127.0.0.1:${port}/missing`, { allowAddress: any }))).toEqual({ status: 502, msg: OUTBOUND_FAILED, param: undefined });
    expect(await refusal(() => readOutbound('http://127.0.0.1:1/', { allowAddress: any }))).toEqual({ status: 502, msg: OUTBOUND_FAILED, param: undefined });
    expect(await refusal(() => readOutbound(`http://127.0.0.1:${port}/big`, { allowAddress: any, maxBytes: 100 }))).toEqual({ status: 502, msg: OUTBOUND_FAILED, param: undefined });
    // fetchOutbound itself hands back the far end's status (a webhook delivery logs it)
    expect((await fetchOutbound(`http://127.0.0.1:${port}/missing`, { allowAddress: any })).status).toBe(404);
  });
});
