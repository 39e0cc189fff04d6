import { z } from 'zod';
import { Id, IdList, IsoDate } from '@church/common';

export { ChurchParams } from '@church/common';

export const Sermon = z.object({
  id: z.string(),
  churchId: z.string(),
  playlistId: z.string().nullable(),
  videoType: z.string().nullable(),
  videoData: z.string().nullable(),
  videoUrl: z.string().nullable(),
  title: z.string(),
  description: z.string().nullable(),
  publishDate: z.date().nullable(),
  thumbnail: z.string().nullable(),
  duration: z.number().nullable(),
  permanentUrl: z.boolean(),
});
export const SermonSave = z.object({
  id: Id.optional(),
  playlistId: Id.nullish(),
  videoType: z.string().trim().max(50).nullish(),
  videoData: z.string().trim().max(1000).nullish(),
  videoUrl: z.string().trim().max(2000).nullish(),
  title: z.string().trim().min(1, 'is required').max(500),
  description: z.string().max(20_000).nullish(),
  publishDate: IsoDate.nullish(),
  thumbnail: z.string().max(15_000_000).nullish(),
  duration: z.coerce.number().int().min(0).max(1_000_000).nullish(),
  permanentUrl: z.boolean().optional(),
});
export const SermonParams = z.object({ churchId: Id, sermonId: Id });
export const TimelineQuery = z.object({ sermonIds: IdList.optional() });
export const VideoLookupQuery = z.object({ videoType: z.string().trim().min(1, 'is required').max(50), videoData: z.string().trim().min(1, 'is required').max(200) });
export const VideoInfo = z.object({ title: z.string(), description: z.string(), thumbnail: z.string(), duration: z.number(), publishDate: z.string().nullable() });
export const SocialQuery = z.object({ videoHostAVideoId: z.string().trim().min(1, 'is required').max(100) });
export const Suggestions = z.object({ suggestions: z.array(z.string()) });
export const OutlineQuery = z.object({ url: z.url({ protocol: /^https?$/, message: 'must be an http(s) address' }), title: z.string().max(500).optional(), author: z.string().max(200).optional() });
export const Outline = z.object({ outline: z.string() });
export const ChannelParams = z.object({ channelId: z.string().trim().min(1).max(200) });
export const TvItem = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  image: z.string(),
  url: z.string(),
  videoType: z.string(),
  videoData: z.string(),
  duration: z.number(),
  publishDate: z.string().nullable(),
});
export const TvPlaylist = z.object({ id: z.string(), title: z.string(), description: z.string(), image: z.string(), items: z.array(TvItem) });
export const TvFeed = z.object({ churchId: z.string(), playlists: z.array(TvPlaylist), items: z.array(TvItem) });
export const TvWrapper = z.object({ churchId: z.string(), sources: z.array(z.object({ key: z.string(), name: z.string(), url: z.string() })) });
export const PresenterSample = z.object({
  name: z.string(),
  image: z.string(),
  items: z.array(z.object({ type: z.string(), label: z.string(), url: z.string().optional(), seconds: z.number() })),
});
export const Sermons = z.array(Sermon);
/** A sermon as a timeline post (B1App's TimelineHelper keys posts by `postId` and `postType`), beside its own keys. */
export const SermonPosts = z.array(Sermon.extend({ postType: z.literal('sermon'), postId: z.string() }));
/** Sermons a channel import offers: the channel's videos the church has no sermon of yet (not saved). */
export const ImportedSermons = z.array(Sermon.omit({ id: true, playlistId: true, publishDate: true }).extend({ publishDate: z.string().nullable() }));

export const Playlist = z.object({
  id: z.string(),
  churchId: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  publishDate: z.date().nullable(),
  thumbnail: z.string().nullable(),
  isPublic: z.boolean(),
});
export const Playlists = z.array(Playlist);
export const PlaylistSave = z.object({
  id: Id.optional(),
  title: z.string().trim().min(1, 'is required').max(500),
  description: z.string().max(20_000).nullish(),
  publishDate: IsoDate.nullish(),
  thumbnail: z.string().max(15_000_000).nullish(),
  isPublic: z.boolean().optional(),
});

export const StreamingService = z.object({
  id: z.string(),
  churchId: z.string(),
  label: z.string().nullable(),
  serviceTime: z.date(),
  earlyStart: z.number(),
  duration: z.number(),
  chatBefore: z.number(),
  chatAfter: z.number(),
  provider: z.string().nullable(),
  providerKey: z.string().nullable(),
  videoUrl: z.string().nullable(),
  timezoneOffset: z.number().nullable(),
  recurring: z.boolean(),
  sermonId: z.string().nullable(),
});
export const StreamingServices = z.array(StreamingService);
/** Every length of a service is in seconds, as the apps send and read them. */
const Seconds = z.coerce.number().int().min(0).max(7 * 24 * 3600);
export const StreamingServiceSave = z.object({
  id: Id.optional(),
  label: z.string().trim().max(200).nullish(),
  serviceTime: IsoDate,
  earlyStart: Seconds.optional(),
  duration: z.coerce.number().int().min(1).max(24 * 3600).optional(),
  chatBefore: Seconds.optional(),
  chatAfter: Seconds.optional(),
  provider: z.string().trim().max(50).nullish(),
  providerKey: z.string().trim().max(1000).nullish(),
  videoUrl: z.string().trim().max(2000).nullish(),
  timezoneOffset: z.coerce.number().int().min(-24 * 60).max(24 * 60).nullish(),
  recurring: z.boolean().optional(),
  sermonId: z.string().max(100).nullish(),
});
/** The chat room a host joins: the service's id, encrypted. */
export const HostChatRoom = z.object({ room: z.string() });
/** A service named by its id, or by the sealed id the preview answers (what B1App's live page sends). */
export const ServiceRefParams = z.object({ id: z.string().trim().min(1).max(300) });

export const PreviewParams = z.object({ key: z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9-]+$/, 'must be a subdomain') });
/** A streaming tab or link; `type` and `data` repeat `linkType` and `linkData` under the live page's names. */
const PreviewLink = z.object({
  id: z.string(),
  text: z.string().nullable(),
  url: z.string().nullable(),
  icon: z.string().nullable(),
  linkType: z.string().nullable(),
  linkData: z.string().nullable(),
  sort: z.number(),
  type: z.string().nullable(),
  data: z.string().nullable(),
});
const PreviewSermon = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  thumbnail: z.string().nullable(),
  videoUrl: z.string().nullable(),
  videoType: z.string().nullable(),
  videoData: z.string().nullable(),
  duration: z.number().nullable(),
  publishDate: z.string().nullable(),
});
/**
 * A service as the live page reads it: times as ISO text, the chat's and early start's lengths as `m:ss`; `id`
 * sealed with the shared ENCRYPTION_KEY (the page opens the service's chat with it, and messaging takes only a
 * sealed id), `serviceId` plain.
 */
const PreviewService = z.object({
  id: z.string(),
  serviceId: z.string(),
  label: z.string().nullable(),
  serviceTime: z.string(),
  earlyStart: z.string(),
  duration: z.number(),
  chatBefore: z.string(),
  chatAfter: z.string(),
  provider: z.string().nullable(),
  providerKey: z.string().nullable(),
  videoUrl: z.string().nullable(),
  timezoneOffset: z.number().nullable(),
  recurring: z.boolean(),
  sermonId: z.string().nullable(),
  sermon: PreviewSermon.nullable(),
});
/** Everything the streaming page shows, in one answer. */
export const PreviewData = z.object({
  churchId: z.string(),
  church: z.object({ id: z.string(), name: z.string().nullable(), subDomain: z.string() }),
  tabs: z.array(PreviewLink),
  links: z.array(PreviewLink),
  buttons: z.array(z.object({ text: z.string().nullable(), url: z.string().nullable() })),
  services: z.array(PreviewService),
  sermons: z.array(PreviewSermon),
});
