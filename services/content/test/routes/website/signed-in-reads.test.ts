import { call } from '@church/common/testing';
import { makeChurch, useContent } from '../../setup';

const t = useContent();
const EDIT = ['Content.Edit'];

describe('signed-in reads of gated pages and links (GET /content/pages, /content/links)', () => {
  it('a guest sees only the rows whose gate lets them in; staff and editors see theirs', async () => {
    const a = makeChurch();
    const saved = (
      await call(t.app, 'POST', '/content/pages', {
        token: a.token(EDIT),
        body: [
          { url: '/open', title: 'Open', visibility: 'everyone' },
          { url: '/staff', title: 'Staff payroll', visibility: 'staff' },
          { url: '/members', title: 'Members area', visibility: 'members' },
        ],
      })
    ).json();
    const staffPage = saved.find((p: { url: string }) => p.url === '/staff');
    const guest = a.token([], { membershipStatus: 'Guest' });
    const titles = async (token: string) => (await call(t.app, 'GET', '/content/pages', { token })).json().map((p: { title: string }) => p.title);
    expect(await titles(guest)).toEqual(['Open']);
    expect(await titles(a.token([], { membershipStatus: 'Member' }))).toEqual(['Members area', 'Open']);
    expect(await titles(a.token([], { membershipStatus: 'Staff' }))).toEqual(['Members area', 'Open', 'Staff payroll']);
    expect(await titles(a.token(EDIT))).toEqual(['Members area', 'Open', 'Staff payroll']);
    expect((await call(t.app, 'GET', `/content/pages/${staffPage.id}`, { token: guest })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/content/pages/${staffPage.id}`, { token: a.token(EDIT) })).json().title).toBe('Staff payroll');
    // nor the content of its sections and elements by id
    const [section] = (await call(t.app, 'POST', '/content/sections', { token: a.token(EDIT), body: [{ pageId: staffPage.id }] })).json();
    const [element] = (await call(t.app, 'POST', '/content/elements', { token: a.token(EDIT), body: [{ sectionId: section.id, elementType: 'text', answers: { text: 'Salaries' } }] })).json();
    expect((await call(t.app, 'GET', `/content/sections/${section.id}`, { token: guest })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/content/elements/${element.id}`, { token: guest })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/content/elements/${element.id}`, { token: a.token([], { membershipStatus: 'Staff' }) })).json().answers).toEqual({ text: 'Salaries' });
    expect((await call(t.app, 'GET', `/content/sections/${section.id}`, { token: a.token(EDIT) })).statusCode).toBe(200);

    const links = (
      await call(t.app, 'POST', '/content/links', { token: a.token(EDIT), body: [{ text: 'Home', url: '/', visibility: 'everyone' }, { text: 'Payroll', url: '/staff', visibility: 'staff' }] })
    ).json();
    const hidden = links.find((l: { text: string }) => l.text === 'Payroll');
    expect((await call(t.app, 'GET', '/content/links', { token: guest })).json().map((l: { text: string }) => l.text)).toEqual(['Home']);
    expect((await call(t.app, 'GET', '/content/links', { token: a.token(EDIT) })).json()).toHaveLength(2);
    expect((await call(t.app, 'GET', `/content/links/${hidden.id}`, { token: guest })).statusCode).toBe(404);
  });
});

describe('signed-in reads of posts (GET /content/posts)', () => {
  it('drafts and scheduled posts are read only by website editors', async () => {
    const a = makeChurch();
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const saved = (
      await call(t.app, 'POST', '/content/posts', {
        token: a.token(EDIT),
        body: [
          { title: 'Live', publishDate: '2026-01-01T00:00:00.000Z' },
          { title: 'Next week', publishDate: future },
          { title: 'Draft' },
        ],
      })
    ).json();
    const member = a.token([], { membershipStatus: 'Member' });
    expect((await call(t.app, 'GET', '/content/posts', { token: member })).json().map((p: { title: string }) => p.title)).toEqual(['Live']);
    expect((await call(t.app, 'GET', '/content/posts', { token: a.token(EDIT) })).json()).toHaveLength(3);
    const scheduled = saved.find((p: { title: string }) => p.title === 'Next week');
    expect((await call(t.app, 'GET', `/content/posts/${scheduled.id}`, { token: member })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/content/posts/${scheduled.id}`, { token: a.token(EDIT) })).json().title).toBe('Next week');
  });
});
