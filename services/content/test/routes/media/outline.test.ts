import { call, fakeServer } from '@church/common/testing';
import { makeChurch, useContent } from '../../setup';

// An AI endpoint that records every question: the SSRF refusals must come before it is asked.
let asked = 0;
const t = useContent({
  fakes: async () => {
    const server = await fakeServer(() => {
      asked++;
      return { body: { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'x' } }] } };
    });
    return { server, config: { OPENAI_API_KEY: 'ai-key', OPENAI_API_URL: `${server.url}/v1` }, close: () => server.close() };
  },
});

describe('GET /content/sermons/outline (the shared outbound rules)', () => {
  it.each(['http://127.0.0.1:5432/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/', 'http://10.0.0.1/', 'file:///etc/passwd'])(
    'refuses %s with a 400 naming url, asking nothing',
    async (url) => {
      const a = makeChurch();
      const res = await call(t.app, 'GET', `/content/sermons/outline?url=${encodeURIComponent(url)}`, { token: a.token() });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].param).toBe('url');
      expect(asked).toBe(0);
    },
  );

  it('refuses the loopback fake itself (the rules are on unless OUTLINE_ALLOW_PRIVATE_URLS)', async () => {
    const a = makeChurch();
    const res = await call(t.app, 'GET', `/content/sermons/outline?url=${encodeURIComponent(`${t.server.url}/page`)}`, { token: a.token() });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ param: 'url', location: 'query' });
    expect(asked).toBe(0);
  });
});

describe('a church’s own storage endpoint (POST /content/storage/providers)', () => {
  it.each(['http://127.0.0.1:9000', 'http://169.254.169.254', 'http://localhost:9000', 'ftp://files.example'])('refuses %s without STORAGE_ALLOW_PRIVATE_ENDPOINTS', async (endpoint) => {
    const a = makeChurch();
    const settings = JSON.stringify({ endpoint, bucket: 'b', publicBase: 'https://cdn.example/b' });
    const res = await call(t.app, 'POST', '/content/storage/providers', { token: a.token(['Content.Edit']), body: [{ provider: 's3', enabled: true, apiKey: 'k', apiSecret: 's', settings }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('[0].settings');
  });
});
