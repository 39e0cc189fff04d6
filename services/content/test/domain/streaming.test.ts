import { eq } from 'drizzle-orm';
import { systemActor } from '@church/common';
import { fakeInternal } from '@church/common/testing';
import { streamingServices } from '../../src/db/media';
import { clearBlockedIps, refreshServices } from '../../src/domain/media/streaming';
import { makeChurch, useContent } from '../setup';

const t = useContent();

describe('the streaming services list (domain)', () => {
  it('the repeatable job does the same for every church', async () => {
    const a = makeChurch();
    await t.app.db.insert(streamingServices).values({ id: crypto.randomUUID(), churchId: a.churchId, serviceTime: new Date(Date.now() - 3 * 86400_000), recurring: false });
    await refreshServices(t.app.db, null);
    expect(await t.app.db.select().from(streamingServices).where(eq(streamingServices.churchId, a.churchId))).toHaveLength(0);
  });

  it("clears each service's blocked IPs in messaging; messaging away is logged, never the caller's failure", async () => {
    const a = makeChurch();
    const [one, two] = [crypto.randomUUID(), crypto.randomUUID()];
    const log = { info: jest.fn(), warn: jest.fn(), error: jest.fn() };
    const actor = systemActor(a.churchId, 'req-1', log);
    const messaging = fakeInternal({ 'POST /messaging/internal/blockedips/clear': () => ({ removed: 1 }) });
    await clearBlockedIps({ internal: messaging }, actor, [one, two]);
    expect(messaging.calls.map((c) => c.body)).toEqual([[{ churchId: a.churchId, serviceId: one }], [{ churchId: a.churchId, serviceId: two }]]);
    expect(log.warn).not.toHaveBeenCalled();

    const away = fakeInternal({});
    await expect(clearBlockedIps({ internal: away }, actor, [one])).resolves.toBeUndefined();
    expect(away.calls).toHaveLength(1);
    expect(log.warn).toHaveBeenCalledWith(expect.objectContaining({ serviceId: one }), 'could not clear the blocked IPs of a streaming service');
  });
});
