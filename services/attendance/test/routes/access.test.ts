import { expectRoutesGuarded } from '@church/common/testing';
import { useAttendance } from '../setup';

const t = useAttendance();

describe('every attendance route', () => {
  it('refuses callers without a valid token or the permission, and never fails for another church', async () => {
    const report = await expectRoutesGuarded(t.app);
    expect(report.guarded).toBeGreaterThan(30);
    expect(report.total).toBe(report.guarded + report.internal + report.public);
  });
});
