import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMailer } from '../src/email';
import { createStorage, decodeDataUrl } from '../src/storage';
import { createSecretBox } from '../src/crypto';
import { signInternal, verifyInternal, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../src/internal';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A loopback server that records requests and answers with the given status and headers. */
async function fakeProvider(answer: (req: Seen) => { status: number; headers?: Record<string, string>; body?: string }) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const entry = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(entry);
      const out = answer(entry);
      res.writeHead(out.status, out.headers ?? {});
      res.end(out.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('email', () => {
  it('sends through the SendGrid SDK when an API key is configured', async () => {
    const fake = await fakeProvider(() => ({ status: 202 }));
    const mailer = await createMailer({ from: 'office@church.test', sendgridApiKey: 'SG.test-key', sendgridBaseUrl: fake.url, mailDir: '/nonexistent' });
    expect(mailer.kind).toBe('sendgrid');
    await mailer.send({ to: 'ann@example.org', subject: 'Welcome', html: '<p>Hello <b>Ann</b></p>' });
    await fake.close();
    expect(fake.seen).toHaveLength(1);
    expect(fake.seen[0]!.method).toBe('POST');
    expect(fake.seen[0]!.url).toBe('/v3/mail/send');
    expect(fake.seen[0]!.headers.authorization).toBe('Bearer SG.test-key');
    const body = JSON.parse(fake.seen[0]!.body);
    expect(body.from).toEqual({ email: 'office@church.test' });
    expect(body.personalizations[0].to).toEqual([{ email: 'ann@example.org' }]);
    expect(body.subject).toBe('Welcome');
    expect(body.content).toEqual([
      { type: 'text/plain', value: 'Hello Ann' },
      { type: 'text/html', value: '<p>Hello <b>Ann</b></p>' },
    ]);
  });

  it('fails the send when SendGrid refuses it (so the job retries)', async () => {
    const fake = await fakeProvider(() => ({ status: 401, headers: { 'content-type': 'application/json' }, body: '{"errors":[{"message":"bad key"}]}' }));
    const mailer = await createMailer({ from: 'a@b.c', sendgridApiKey: 'SG.wrong', sendgridBaseUrl: fake.url, mailDir: '/nonexistent' });
    await expect(mailer.send({ to: 'x@example.org', subject: 's', html: 'h' })).rejects.toThrow();
    await fake.close();
  });

  it('writes one JSON file per message to the dev mailbox otherwise', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mailbox-'));
    const mailer = await createMailer({ from: 'office@church.test', mailDir: dir });
    await mailer.send({ to: 'ann@example.org', subject: 'Hi', html: 'Line<br>two' });
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(JSON.parse(readFileSync(path.join(dir, files[0]!), 'utf8'))).toEqual({ to: 'ann@example.org', from: 'office@church.test', subject: 'Hi', html: 'Line<br>two', text: 'Line\ntwo' });
  });
});

describe('storage', () => {
  it('puts and removes objects through the S3 SDK against an S3-compatible endpoint', async () => {
    const fake = await fakeProvider((req) => (req.method === 'PUT' ? { status: 200, headers: { etag: '"abc"' } } : { status: 204 }));
    const storage = await createStorage({
      bucket: 'church-files',
      region: 'us-east-1',
      endpoint: fake.url,
      accessKeyId: 'AKIDTEST',
      secretAccessKey: 'secret',
      localDir: '/nonexistent',
      publicBaseUrl: 'https://cdn.example.org/',
    });
    const url = await storage.put('c1/people/p1.png', Buffer.from('png-bytes'), 'image/png');
    await storage.remove('c1/people/p1.png');
    const presigned = await storage.presignUpload('c1/files/doc.pdf', 'application/pdf', 60);
    await fake.close();
    expect(url).toBe('https://cdn.example.org/c1/people/p1.png');
    expect(fake.seen.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual(['PUT /church-files/c1/people/p1.png', 'DELETE /church-files/c1/people/p1.png']);
    expect(fake.seen[0]!.body).toBe('png-bytes');
    expect(fake.seen[0]!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDTEST\//);
    expect(presigned.uploadUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/church-files\/c1\/files\/doc\.pdf\?.*X-Amz-Signature=/);
  });

  it('keeps files in a local folder and refuses keys that escape it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'files-'));
    const storage = await createStorage({ region: 'x', localDir: dir, publicBaseUrl: 'http://localhost:8080/files' });
    expect(await storage.put('c1/a.txt', Buffer.from('hi'), 'text/plain')).toBe('http://localhost:8080/files/c1/a.txt');
    expect(readFileSync(path.join(dir, 'c1/a.txt'), 'utf8')).toBe('hi');
    await expect(storage.put('../escape.txt', Buffer.from('x'), 'text/plain')).rejects.toThrow(/invalid file key/);
  });

  it('decodes base64 data URLs and ignores anything else', () => {
    expect(decodeDataUrl('data:image/jpeg;base64,aGk=')).toEqual({ contentType: 'image/jpeg', body: Buffer.from('hi'), extension: 'jpg' });
    expect(decodeDataUrl('https://example.org/a.png')).toBeNull();
  });
});

describe('secrets at rest', () => {
  it('round-trips, uses a fresh IV each time and detects tampering', () => {
    const box = createSecretBox('k'.repeat(40));
    const a = box.encrypt('sk_live_123');
    expect(a).not.toContain('sk_live_123');
    expect(box.encrypt('sk_live_123')).not.toBe(a);
    expect(box.decrypt(a)).toBe('sk_live_123');
    const parts = a.split('.');
    parts[3] = Buffer.from('other').toString('base64url');
    expect(() => box.decrypt(parts.join('.'))).toThrow();
    expect(() => createSecretBox('z'.repeat(40)).decrypt(a)).toThrow();
  });
});

describe('internal request signatures', () => {
  const secret = 's'.repeat(40);
  const signed = (body: string, ts = String(Date.now()), url = '/attendance/internal/people') => ({
    method: 'POST',
    url,
    rawBody: body,
    headers: { [TIMESTAMP_HEADER]: ts, [SIGNATURE_HEADER]: signInternal(secret, 'POST', url, ts, body) } as Record<string, string>,
  });

  it('accepts a fresh, untampered request', () => expect(verifyInternal(secret, signed('{"a":1}'))).toBe(true));
  it('refuses an unsigned request', () => expect(verifyInternal(secret, { method: 'POST', url: '/x', headers: {} })).toBe(false));
  it('refuses a tampered body or path', () => {
    expect(verifyInternal(secret, { ...signed('{"a":1}'), rawBody: '{"a":2}' })).toBe(false);
    expect(verifyInternal(secret, { ...signed('{"a":1}'), url: '/attendance/internal/groups' })).toBe(false);
  });
  it('refuses a stale request', () => expect(verifyInternal(secret, signed('{}', String(Date.now() - 10 * 60 * 1000)))).toBe(false));
  it('refuses another secret', () => expect(verifyInternal('t'.repeat(40), signed('{}'))).toBe(false));
});
