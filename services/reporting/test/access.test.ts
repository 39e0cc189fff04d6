import { randomUUID } from 'node:crypto';
import { expectForeignReferencesRefused, expectRoutesGuarded, tokenFor } from '@church/common/testing';
import { useReporting } from './setup';

const h = useReporting([]);

describe('every reporting route', () => {
  it('refuses callers without a valid token, and never fails for another church', async () => {
    const report = await expectRoutesGuarded(h.app, { params: { keyName: 'attendanceTrend' } });
    // the two spec routes and the list the staff app reads, plus the shared internal query route every module answers
    expect(report.guarded).toBe(3);
    expect(report.internal).toBe(1);
    expect(report.total).toBe(4);
  });

  it('walks an unknown key name without a server error', async () => {
    const report = await expectRoutesGuarded(h.app);
    expect(report.guarded).toBe(3);
  });
});

describe('references in bodies', () => {
  it('has no write route a caller could hand another church\'s ids (reports only read; the query route is internal)', async () => {
    const churchId = randomUUID();
    const report = await expectForeignReferencesRefused(h.app, { churchId, token: tokenFor({ churchId, permissions: 'all' }), foreign: { personId: randomUUID() } });
    expect(report).toEqual({ walked: 0, refused: 0, accepted: 0, fields: [] });
  });
});
