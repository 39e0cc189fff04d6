import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { expectRoutesGuarded } from '@church/common/testing';
import { useContent } from '../setup';
import { fakeMembership } from './fakes';

const membership = fakeMembership();
const t = useContent({ overrides: { internal: membership.internal } });

describe('every content route (both halves)', () => {
  it('refuses callers without a valid token or the permission, and never fails for another church', async () => {
    const report = await expectRoutesGuarded(t.app, {
      // Open to any signed-in user by the spec, with the rule applied per item (event groups) or per user.
      openToAnyUser: ['POST /content/events', 'POST /content/settings/my', 'DELETE /content/settings/my/:id'],
    });
    expect(report.guarded).toBeGreaterThan(40);
    expect(report.total).toBe(report.guarded + report.internal + report.public);
  });
});

const SPEC = path.resolve(__dirname, '../../../../../shared/spec/routes.json');
const PREFIXES = ['pages', 'sections', 'elements', 'blocks', 'links', 'globalStyles', 'pageHistory', 'posts', 'redirects', 'settings', 'events', 'eventExceptions', 'curatedCalendars', 'curatedEvents'];
const shape = (p: string) => p.toLowerCase().replace(/:[a-z0-9_]+/gi, ':');

describe('the website half of the spec', () => {
  const run = existsSync(SPEC) ? it : it.skip;
  run('has every route of its tables at its path, method and access', () => {
    const spec = (JSON.parse(readFileSync(SPEC, 'utf8')) as Array<{ method: string; path: string; auth: string; permission: string | null }>).filter((r) =>
      PREFIXES.some((p) => r.path === `/content/${p}` || r.path.startsWith(`/content/${p}/`)),
    );
    expect(spec).toHaveLength(82);
    const registered = new Map(t.app.routeList.map((r) => [`${r.method} ${shape(r.url)}`, r.access]));
    const problems = spec.flatMap((r) => {
      const access = registered.get(`${r.method} ${shape(r.path)}`);
      if (!access) return [`missing ${r.method} ${r.path}`];
      const permission = r.path.startsWith('/content/pageHistory') ? 'Content.Edit' : (r.permission ?? '—');
      if (r.auth === 'Public') return access === 'public' ? [] : [`${r.method} ${r.path} should be public`];
      if (access === 'public' || access === 'internal') return [`${r.method} ${r.path} should need a token`];
      return access.text === permission ? [] : [`${r.method} ${r.path}: ${access.text}, spec ${permission}`];
    });
    expect(problems).toEqual([]);
  });
});

describe('the website half', () => {
  it('has the 82 routes of the spec and the one the apps call beside them', () => {
    const website = t.app.routeList.filter((r) => PREFIXES.some((p) => r.url === `/content/${p}` || r.url.startsWith(`/content/${p}/`)));
    // + POST /sections/tree (B1Admin ContentEditor.tsx: section templates, layout switch, AI rewrite)
    // + POST /pages/:id/publish, POST /pages/:id/discard, DELETE /pages/:id/published (its drafts)
    expect(website).toHaveLength(87);
    const routes = new Set(website.map((r) => `${r.method} ${r.url}`));
    // B1Admin:src/registrations/RegistrationsPage.tsx, B1App GroupsPage.tsx (a literal route beside /:id)
    expect(routes).toContain('GET /content/events/registerable');
    expect(routes).toContain('POST /content/sections/tree');
    expect(routes).toContain('POST /content/pages/:id/publish');
  });
});
