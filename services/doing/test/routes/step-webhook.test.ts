import { randomUUID } from 'node:crypto';
import { call, fakeServer } from '@church/common/testing';
import { makeChurch, useDoing } from '../setup';

// the church's webhook receiver, on loopback (OUTBOUND_ALLOW_PRIVATE lets the delivery reach it)
const t = useDoing({
  config: { OUTBOUND_ALLOW_PRIVATE: 'true' },
  fakes: async () => {
    const server = await fakeServer(() => ({ status: 200, json: { ok: true } }));
    return { server, close: server.close };
  },
});

const post = async (c: ReturnType<typeof makeChurch>, url: string, body: unknown) => {
  const res = await call(t.app, 'POST', url, { token: c.token(), body });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json();
};

describe('a workflow step\'s webhook action', () => {
  it('posts the card\'s facts to the URL once the card\'s write commits; a URL that is not http(s) is refused on save', async () => {
    const c = makeChurch();
    const [w] = await post(c, '/doing/workflows', [{ name: 'Hooks' }]);
    const [step] = await post(c, '/doing/workflowSteps', [{ workflowId: w.id, name: 'Tell' }]);
    await post(c, '/doing/workflowStepActions', [{ stepId: step.id, actionType: 'webhook', config: { url: `${t.server.url}/hook` } }]);
    const refused = await call(t.app, 'POST', '/doing/workflowStepActions', { token: c.token(), body: [{ stepId: step.id, actionType: 'webhook', config: { url: 'ftp://nope' } }] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0].param).toBe('[0].config.url');
    const subject = randomUUID();
    const card = await post(c, '/doing/tasks/addToWorkflow', { workflowId: w.id, associatedWith: { id: subject, label: 'Hana' } });
    expect(card.data.history.map((h: { message: string }) => h.message)).toEqual(['Webhook sent']);
    await t.drain();
    const hits = t.server.seen.filter((r) => r.path === '/hook');
    expect(hits).toHaveLength(1);
    expect(hits[0]!.method).toBe('POST');
    expect(hits[0]!.json).toEqual({ cardId: card.id, workflowId: w.id, stepId: step.id, personId: subject, personName: 'Hana' });
  });
});
