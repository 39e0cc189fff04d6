import { notFound } from '@church/common';
import { churchBySubDomain } from '../../clients/membership';
import type { ContentDeps } from '../../deps';
import { newestSermons, type SermonRow } from '../../repos/media/sermons';
import { servicesOf, streamingLinks, type StreamingLinkRow } from '../../repos/media/streaming';
import { minutesAndSeconds, refreshServices } from './streaming';

const linkOf = (l: StreamingLinkRow) => ({ id: l.id, text: l.text, url: l.url, icon: l.icon, linkType: l.linkType, linkData: l.linkData, sort: l.sort, type: l.linkType, data: l.linkData });
const sermonOf = (s: SermonRow) => ({
  id: s.id,
  title: s.title,
  description: s.description,
  thumbnail: s.thumbnail,
  videoUrl: s.videoUrl,
  videoType: s.videoType,
  videoData: s.videoData,
  duration: s.duration,
  publishDate: s.publishDate ? s.publishDate.toISOString() : null,
});

/**
 * Everything the streaming page shows, by the church's subdomain (`key`), in one answer: the church (looked up in
 * membership; 404 when it knows none), its tabs and links, its services (the list maintained first) each with the
 * sermon it shows (its own, else the latest published), and its newest sermons.
 */
export async function previewData(deps: Pick<ContentDeps, 'db' | 'internal' | 'secrets'>, key: string, requestId: string) {
  const church = await churchBySubDomain(deps.internal, key, requestId);
  if (!church?.id) throw notFound('Church');
  const churchId = church.id;
  await refreshServices(deps.db, churchId);
  const [tabLinks, services, recent] = await Promise.all([streamingLinks(deps.db, churchId), servicesOf(deps.db, churchId), newestSermons(deps.db, churchId, 50)]);
  const now = Date.now();
  const latest = recent.find((s) => !s.publishDate || s.publishDate.getTime() <= now) ?? recent[0];
  const streamLinks = tabLinks.filter((l) => l.category === 'streamingLink');
  return {
    churchId,
    church: { id: churchId, name: church.name ?? null, subDomain: church.subDomain ?? key },
    tabs: tabLinks.filter((l) => l.category === 'streamingTab').map(linkOf),
    links: streamLinks.map(linkOf),
    buttons: streamLinks.map((l) => ({ text: l.text, url: l.url })),
    services: services.map((s) => {
      const sermon = recent.find((x) => x.id === s.sermonId) ?? latest;
      return {
        // B1App's StreamChatManager opens /messaging/conversations/current/:churchId/streamingLive/:id with it
        id: deps.secrets.encrypt(s.id),
        serviceId: s.id,
        label: s.label,
        serviceTime: s.serviceTime.toISOString(),
        // The live page reads these three as "m:ss" (StreamingServiceHelper.getSeconds).
        earlyStart: minutesAndSeconds(s.earlyStart),
        duration: s.duration,
        chatBefore: minutesAndSeconds(s.chatBefore),
        chatAfter: minutesAndSeconds(s.chatAfter),
        provider: s.provider,
        providerKey: s.providerKey,
        videoUrl: s.videoUrl,
        timezoneOffset: s.timezoneOffset,
        recurring: s.recurring,
        sermonId: s.sermonId,
        sermon: sermon ? sermonOf(sermon) : null,
      };
    }),
    sermons: recent.map(sermonOf),
  };
}
