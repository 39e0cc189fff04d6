import { expectRoutesGuarded } from '@church/common/testing';
import { useReporting } from './setup';

const h = useReporting([]);

describe('every reporting route', () => {
  it('refuses callers without a valid token, and never fails for another church', async () => {
    const report = await expectRoutesGuarded(h.t.app, { params: { keyName: 'attendanceTrend' } });
    // the two spec routes and the list the staff app reads, plus the shared internal query route every module answers
    expect(report.guarded).toBe(3);
    expect(report.internal).toBe(1);
    expect(report.total).toBe(4);
  });

  it('walks an unknown key name without a server error', async () => {
    const report = await expectRoutesGuarded(h.t.app);
    expect(report.guarded).toBe(3);
  });
});
