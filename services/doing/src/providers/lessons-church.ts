import { badRequest, providerFailed } from '@church/common';
import { ProviderUnauthorized, type ContentFile, type ContentItem, type ContentProvider, type InstructionItem, type Instructions, type ProviderToken } from './content-provider';
import { providerJson } from './http';

// Lessons.church's public HTTP API: the program → study → lesson → venue tree, a venue's feed (sections of
// actions with their files) and a venue's playlist at a resolution. Paths the proxy passes look like
// `/lessons/<programId>/<studyId>/<lessonId>/<venueId>`.

interface TreeNode {
  id: string;
  name: string;
  image?: string | null;
}
interface Tree {
  programs?: Array<TreeNode & { studies?: Array<TreeNode & { lessons?: Array<TreeNode & { venues?: TreeNode[] }> }> }>;
}
interface FeedFile {
  id?: string;
  name?: string;
  url?: string;
  seconds?: number;
  fileType?: string;
  thumbnail?: string;
}
interface FeedAction {
  id?: string;
  actionType?: string;
  content?: string;
  seconds?: number;
  files?: FeedFile[];
}
/** A venue's feed as Lessons.church answers `/venues/public/feed/:venueId`. */
export interface VenueFeed {
  id?: string;
  name?: string;
  lessonName?: string;
  lessonImage?: string;
  sections?: Array<{ id?: string; name?: string; actions?: FeedAction[] }>;
}
interface Playlist {
  messages?: Array<{ name?: string; files?: FeedFile[] }>;
}

export interface LessonsChurchOptions {
  apiBase: string;
  oauthBase?: string;
  clientId?: string;
  clientSecret?: string;
  timeoutMs: number;
}

const WHAT = 'Lessons.church';

function segments(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] !== 'lessons') throw badRequest('path', 'must start with /lessons');
  if (parts.some((p) => !/^[A-Za-z0-9_-]{1,64}$/.test(p))) throw badRequest('path', 'has an invalid segment');
  return parts.slice(1);
}

function venueOf(path: string): string {
  const parts = segments(path);
  if (parts.length !== 4) throw badRequest('path', 'must name a venue: /lessons/<program>/<study>/<lesson>/<venue>');
  return parts[3]!;
}

const toFile = (f: FeedFile, i: number, prefix: string): ContentFile => ({
  id: f.id ?? `${prefix}-${i}`,
  name: f.name ?? '',
  url: f.url ?? '',
  seconds: f.seconds ?? null,
  mediaType: f.fileType ?? (f.url && /\.(mp4|m3u8|webm)(\?|$)/i.test(f.url) ? 'video' : 'image'),
  thumbnail: f.thumbnail ?? null,
});

/** The real Lessons.church adapter; also the plan feed's lesson source (`venueFeed`). */
export function lessonsChurch(opts: LessonsChurchOptions): ContentProvider & { venueFeed(venueId: string): Promise<VenueFeed> } {
  const base = opts.apiBase.replace(/\/+$/, '');
  const get = <T>(path: string, token: string | null) => providerJson<T>(WHAT, `${base}${path}`, { token, timeoutMs: opts.timeoutMs });
  const feed = (venueId: string, token: string | null) => get<VenueFeed>(`/venues/public/feed/${encodeURIComponent(venueId)}`, token);

  const instructions = async (path: string, token: string | null, expanded: boolean): Promise<Instructions> => {
    const venue = await feed(venueOf(path), token);
    const items: InstructionItem[] = (venue.sections ?? []).map((s, si) => ({
      id: s.id ?? `section-${si}`,
      itemType: 'section',
      label: s.name ?? '',
      children: (s.actions ?? []).map((a, ai) => ({
        id: a.id ?? `action-${si}-${ai}`,
        itemType: 'action' as const,
        label: a.content ?? '',
        actionType: a.actionType ?? null,
        seconds: a.seconds ?? null,
        ...(expanded ? { files: (a.files ?? []).map((f, fi) => toFile(f, fi, `file-${si}-${ai}`)) } : {}),
      })),
    }));
    return { venueName: venue.name ?? '', items };
  };

  /** One grant at the token endpoint (RFC 6749 §5.1 answer); `refused` words a 401 from it. */
  const tokenGrant = async (grant: Record<string, string>, refused: string, what: string, onBadRequest?: () => Error): Promise<ProviderToken> => {
    const form: Record<string, string> = { ...grant };
    if (opts.clientId) form.client_id = opts.clientId;
    if (opts.clientSecret && grant.grant_type === 'authorization_code') form.client_secret = opts.clientSecret;
    const answer = await providerJson<{ access_token?: string; refresh_token?: string; expires_in?: number; token_type?: string; scope?: string }>(
      WHAT,
      `${(opts.oauthBase ?? base).replace(/\/+$/, '')}/oauth/token`,
      { method: 'POST', form, timeoutMs: opts.timeoutMs, onBadRequest },
    ).catch((err: unknown) => {
      if (err instanceof ProviderUnauthorized) throw providerFailed(WHAT, refused);
      throw err;
    });
    if (!answer.access_token) throw providerFailed(WHAT, `${what} answered no access token`);
    return {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token ?? null,
      tokenType: answer.token_type ?? 'Bearer',
      expiresAt: answer.expires_in ? new Date(Date.now() + answer.expires_in * 1000) : null,
      scopes: answer.scope ?? null,
    };
  };

  return {
    id: 'lessonschurch',
    name: WHAT,
    requiresAuth: false,
    refresh: (refreshToken) => tokenGrant({ grant_type: 'refresh_token', refresh_token: refreshToken }, 'refused the refresh token', 'token refresh'),
    exchangeCode: (code, codeVerifier, redirectUri) =>
      tokenGrant(
        { grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: redirectUri },
        'refused our client credentials (LESSONS_CLIENT_ID, LESSONS_CLIENT_SECRET)',
        'the code exchange',
        // invalid_grant (RFC 6749 §5.2): a used or expired code, or a verifier or address that does not match it
        () => badRequest('code', 'was refused by the provider: it is used or expired, or the codeVerifier or redirectUri does not match it'),
      ),
    async browse(path, token) {
      const parts = segments(path || '/lessons');
      if (parts.length === 4) {
        const files = await this.getPlaylist(path, token);
        return files.map((file): ContentItem => ({ type: 'file', id: file.id, title: file.name, path: `${path.replace(/\/+$/, '')}/${file.id}`, image: file.thumbnail ?? null, file }));
      }
      const tree = await get<Tree>('/lessons/public/tree', token);
      let level: TreeNode[] = tree.programs ?? [];
      const walk: Array<(n: TreeNode) => TreeNode[]> = [
        (n) => (n as { studies?: TreeNode[] }).studies ?? [],
        (n) => (n as { lessons?: TreeNode[] }).lessons ?? [],
        (n) => (n as { venues?: TreeNode[] }).venues ?? [],
      ];
      for (const [depth, id] of parts.entries()) {
        const node = level.find((n) => n.id === id);
        if (!node) throw badRequest('path', 'names nothing in the provider');
        level = walk[depth]!(node);
      }
      const prefix = ['', 'lessons', ...parts].join('/');
      return level.map((n): ContentItem => ({ type: 'folder', id: n.id, title: n.name, path: `${prefix}/${n.id}`, image: n.image ?? null }));
    },
    async getPresentations(path, token) {
      const venueId = venueOf(path);
      const venue = await feed(venueId, token);
      const sections = (venue.sections ?? []).map((s, si) => ({
        id: s.id ?? `section-${si}`,
        name: s.name ?? '',
        presentations: (s.actions ?? [])
          .filter((a) => (a.files ?? []).length > 0)
          .map((a, ai) => ({ id: a.id ?? `action-${si}-${ai}`, name: a.content ?? '', actionType: a.actionType ?? 'play', files: (a.files ?? []).map((f, fi) => toFile(f, fi, `file-${si}-${ai}`)) })),
      }));
      return { id: venueId, name: venue.lessonName ?? venue.name ?? '', image: venue.lessonImage ?? null, sections, allFiles: sections.flatMap((s) => s.presentations.flatMap((p) => p.files)) };
    },
    async getPlaylist(path, token, resolution) {
      const venueId = venueOf(path);
      const query = resolution ? `?resolution=${encodeURIComponent(String(resolution))}` : '';
      const playlist = await get<Playlist>(`/venues/playlist/${encodeURIComponent(venueId)}${query}`, token);
      return (playlist.messages ?? []).flatMap((m, mi) => (m.files ?? []).map((f, fi) => toFile(f, fi, `file-${mi}`)));
    },
    getInstructions: (path, token) => instructions(path, token, false),
    getExpandedInstructions: (path, token) => instructions(path, token, true),
    venueFeed: (venueId) => feed(venueId, null),
  };
}
