import type { FastifyInstance } from 'fastify';
import { convert } from 'html-to-text';
import { anyUser, requires } from '@church/auth';
import { crud, listRows, notFound, readOutbound, type ZodTypeProvider } from '@church/common';
import { playlists, sermons } from '../../db/media';
import { contentDeps } from '../../deps';
import { hostOf, parseSuggestions, videoUrlOf } from '../../domain/media/sermons';
import { storeInlineImage } from '../../domain/media/uploads';
import { publishStep } from '../../domain/schedule';
import { serialized } from '../kept';
import { knownVideoIds, publicPlaylists, publicSermons, scheduledSermons, sermonOrder, sermonsByIds, type SermonRow } from '../../repos/media/sermons';
import {
  ChannelParams,
  ChurchParams,
  ImportedSermons,
  Outline,
  OutlineQuery,
  PresenterSample,
  Sermon,
  SermonParams,
  SermonPosts,
  Sermons,
  SermonSave,
  SocialQuery,
  Suggestions,
  TimelineQuery,
  TvFeed,
  TvPlaylist,
  TvWrapper,
  VideoInfo,
  VideoLookupQuery,
} from '../../schemas/media-streaming';

const edit = requires('StreamingServices.Edit');

const tvItem = (s: SermonRow) => ({
  id: s.id,
  title: s.title,
  description: s.description ?? '',
  image: s.thumbnail ?? '',
  url: s.videoUrl ?? videoUrlOf(s.videoType, s.videoData) ?? '',
  videoType: s.videoType ?? '',
  videoData: s.videoData ?? '',
  duration: s.duration ?? 0,
  publishDate: s.publishDate ? s.publishDate.toISOString() : null,
});

/** `/content/sermons`: sermons, public feeds, video-host lookup and import, AI helpers. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/content/sermons/public/presenterSample', { config: { access: anyUser }, schema: { response: { 200: PresenterSample } } }, async () => ({
    name: 'Sample playlist',
    image: '',
    items: [
      { type: 'header', label: 'Welcome', seconds: 0 },
      { type: 'video', label: 'Countdown', url: 'https://example.org/countdown.mp4', seconds: 300 },
      { type: 'song', label: 'Opening song', seconds: 240 },
      { type: 'sermon', label: 'Sermon', url: '', seconds: 1800 },
      { type: 'header', label: 'Closing', seconds: 0 },
    ],
  }));

  app.get('/content/sermons/public/tvWrapper/:churchId', { config: { access: anyUser }, schema: { params: ChurchParams, response: { 200: TvWrapper } } }, async (req) => {
    const { churchId } = req.params;
    return {
      churchId,
      sources: [
        { key: 'sermons', name: 'Sermons', url: `/content/sermons/public/tvFeed/${churchId}` },
        { key: 'lessons', name: 'Lessons', url: `/doing/providerProxy/lessons/${churchId}` },
        { key: 'presenterApp', name: 'Presentations', url: `/content/sermons/public/presenterSample` },
      ],
    };
  });

  app.get('/content/sermons/public/tvFeed/:churchId/:sermonId', { config: { access: 'public' }, schema: { params: SermonParams, response: { 200: TvPlaylist } } }, async (req) => {
    const { churchId, sermonId } = req.params;
    const [s] = (await publicSermons(app.db, churchId)).filter((x) => x.id === sermonId);
    if (!s) throw notFound('Sermon');
    return { id: s.id, title: s.title, description: s.description ?? '', image: s.thumbnail ?? '', items: [tvItem(s)] };
  });

  app.get('/content/sermons/public/tvFeed/:churchId', { config: { access: 'public' }, schema: { params: ChurchParams, response: { 200: TvFeed } } }, async (req) => {
    const { churchId } = req.params;
    const [all, lists] = await Promise.all([
      publicSermons(app.db, churchId),
      publicPlaylists(app.db, churchId),
    ]);
    return {
      churchId,
      playlists: lists.map((p) => ({
        id: p.id,
        title: p.title,
        description: p.description ?? '',
        image: p.thumbnail ?? '',
        items: all.filter((s) => s.playlistId === p.id).map(tvItem),
      })),
      items: all.filter((s) => !s.playlistId).map(tvItem),
    };
  });

  // Served from a kept answer per church and data version (writes to sermons and playlists raise it). The
  // answer also depends on the clock (scheduled sermons): it is kept per publish step, so it is built again
  // when a scheduled sermon's time comes, and only then.
  app.get('/content/sermons/public/:churchId', { config: { access: 'public' }, schema: { params: ChurchParams, response: { 200: Sermons } } }, async (req, reply) => {
    const { churchId } = req.params;
    const version = await app.deps.snapshots.version(churchId);
    const { now, step } = await publishStep(app.deps, 'sermons', churchId, version, (after) => scheduledSermons(app.db, churchId, after));
    return app.deps.snapshots.sendAt(req, reply, churchId, String(step), version, async () => serialized(reply, await publicSermons(app.db, churchId, now)));
  });

  app.get('/content/sermons/timeline', { config: { access: anyUser }, schema: { querystring: TimelineQuery, response: { 200: SermonPosts } } }, async (req) => {
    const ids = req.query.sermonIds ?? [];
    if (!ids.length) return [];
    return (await sermonsByIds(app.db, req.auth.churchId, ids)).map((s) => ({ ...s, postType: 'sermon' as const, postId: s.id }));
  });

  app.get(
    '/content/sermons/lookup',
    {
      config: { access: 'public' },
      schema: { querystring: VideoLookupQuery, response: { 200: VideoInfo } },
    },
    async (req) => {
      const host = hostOf(contentDeps(app).providers, req.query.videoType);
      const info = await host.lookup(req.query.videoData);
      if (!info) throw notFound('Video');
      return info;
    },
  );

  app.get(
    '/content/sermons/socialSuggestions',
    { config: { access: anyUser }, schema: { querystring: SocialQuery, response: { 200: Suggestions } } },
    async (req) => {
      const { providers } = contentDeps(app);
      const transcript = await providers.videoHostA.transcript(req.query.videoHostAVideoId);
      if (!transcript) throw notFound('Video');
      const answer = await providers.ai.complete(
        'You write short social media posts for a church. Answer with a JSON array of 5 strings, each a post under 280 characters, no hashtags spam.',
        `Write posts that invite people to watch this sermon. Its text:\n\n${transcript.slice(0, 20_000)}`,
      );
      return { suggestions: parseSuggestions(answer) };
    },
  );

  app.get(
    '/content/sermons/outline',
    {
      config: { access: anyUser },
      schema: { querystring: OutlineQuery, response: { 200: Outline } },
    },
    async (req) => {
      const { providers, config } = contentDeps(app);
      // Nothing is fetched for a request that cannot be answered anyway (no AI key).
      providers.ai.ready();
      // The caller's address goes through the shared SSRF rules: a refused address is a 400 naming `url`, any
      // failure at the far end the one 502 text (no oracle of what answered inside).
      const allowAddress = config.OUTLINE_ALLOW_PRIVATE_URLS === 'true' ? () => true : undefined;
      const { body: html } = await readOutbound(req.query.url, { param: 'url', location: 'query', allowAddress });
      const text = convert(html, { wordwrap: false, selectors: [{ selector: 'a', options: { ignoreHref: true } }, { selector: 'img', format: 'skip' }] }).slice(0, 30_000);
      const outline = await providers.ai.complete(
        'You turn sermon and lesson text into a clear outline for a small-group leader: a title, 3 to 6 main points with scripture references, and 3 discussion questions. Answer in Markdown.',
        `${req.query.title ? `Title: ${req.query.title}\n` : ''}${req.query.author ? `Author: ${req.query.author}\n` : ''}\n${text}`,
      );
      return { outline };
    },
  );

  // The spec's neutral names and the names B1Admin's YouTubeImport.tsx and VimeoImport.tsx call: one handler each.
  for (const [path, hostKey, videoType] of [
    ['/content/sermons/videoHostAImport/:channelId', 'videoHostA', 'youtube'],
    ['/content/sermons/youtubeImport/:channelId', 'videoHostA', 'youtube'],
    ['/content/sermons/videoHostBImport/:channelId', 'videoHostB', 'vimeo'],
    ['/content/sermons/vimeoImport/:channelId', 'videoHostB', 'vimeo'],
  ] as const) {
    const schema = { params: ChannelParams, response: { 200: ImportedSermons } };
    app.get(path, { config: { access: anyUser }, schema }, async (req) => {
      const videos = await contentDeps(app).providers[hostKey].channelVideos(req.params.channelId);
      const known = await knownVideoIds(app.db, req.auth.churchId, [videoType, hostKey]);
      const seen = new Set<string>();
      return videos
        .filter((v) => v.videoId && !known.has(v.videoId) && !seen.has(v.videoId) && seen.add(v.videoId))
        .map((v) => ({
          churchId: req.auth.churchId,
          videoType,
          videoData: v.videoId,
          videoUrl: videoUrlOf(videoType, v.videoId),
          title: v.title,
          description: v.description,
          thumbnail: v.thumbnail,
          duration: v.duration,
          publishDate: v.publishDate,
          permanentUrl: false,
        }));
    });
  }

  // The whole archive (B1Admin's sermons page; 1,000 sermons are about 600 KB of JSON), scheduled ones
  // included: kept per church and data version (sermons and playlists raise it), compressed once.
  app.get('/content/sermons', { config: { access: anyUser }, schema: { response: { 200: Sermons } } }, async (req, reply) =>
    app.deps.snapshots.send(req, reply, req.auth.churchId, 'all', () => listRows(app.db, sermons, req.auth.churchId, { orderBy: sermonOrder })),
  );

  crud(app, {
    path: '/content/sermons',
    only: ['get', 'save', 'delete'],
    table: sermons,
    item: Sermon,
    save: SermonSave,
    view: anyUser,
    edit,
    orderBy: sermonOrder,
    references: { playlistId: playlists },
    toRow: async (input, req) => {
      const thumbnail = await storeInlineImage(app.deps, req.auth.churchId, 'streamingLive/sermons', input.thumbnail, 'thumbnail');
      return { ...input, thumbnail, videoUrl: input.videoUrl || videoUrlOf(input.videoType, input.videoData) };
    },
  });
}
