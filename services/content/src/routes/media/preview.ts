import type { FastifyInstance } from 'fastify';
import { HttpError, notFound, providerFailed, type ZodTypeProvider } from '@church/common';
import { minutesAndSeconds, refreshServices } from '../../domain/media/streaming';
import { newestSermons, type SermonRow } from '../../repos/media/sermons';
import { servicesOf, streamingLinks, type StreamingLinkRow } from '../../repos/media/streaming';
import { PreviewData, PreviewParams } from '../../schemas/media-streaming';

/** `/content/preview`: everything the streaming page shows, by the church's subdomain, in one answer. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/content/preview/data/:key',
    { config: { access: 'public' }, schema: { params: PreviewParams, response: { 200: PreviewData } } },
    async (req) => {
      let church: { id?: string; name?: string; subDomain?: string | null } | undefined;
      try {
        church = await app.deps.internal.get('membership', `/membership/churches/lookup?subDomain=${encodeURIComponent(req.params.key)}`, { requestId: req.id });
      } catch (err) {
        if (err instanceof HttpError && err.statusCode === 404) throw notFound('Church');
        if (err instanceof HttpError && err.statusCode < 500) throw err;
        throw providerFailed('Looking the church up in membership', err instanceof Error ? err.message : undefined);
      }
      if (!church?.id) throw notFound('Church');
      const churchId = church.id;
      await refreshServices(app.db, churchId);
      const [tabLinks, services, recent] = await Promise.all([
        streamingLinks(app.db, churchId),
        servicesOf(app.db, churchId),
        newestSermons(app.db, churchId, 50),
      ]);
      const link = (l: StreamingLinkRow) => ({ id: l.id, text: l.text, url: l.url, icon: l.icon, linkType: l.linkType, linkData: l.linkData, sort: l.sort, type: l.linkType, data: l.linkData });
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
      const now = Date.now();
      const latest = recent.find((s) => !s.publishDate || s.publishDate.getTime() <= now) ?? recent[0];
      const streamLinks = tabLinks.filter((l) => l.category === 'streamingLink');
      return {
        churchId,
        church: { id: churchId, name: church.name ?? null, subDomain: church.subDomain ?? req.params.key },
        tabs: tabLinks.filter((l) => l.category === 'streamingTab').map(link),
        links: streamLinks.map(link),
        buttons: streamLinks.map((l) => ({ text: l.text, url: l.url })),
        services: services.map((s) => {
          const sermon = recent.find((x) => x.id === s.sermonId) ?? latest;
          return {
            // B1App's StreamChatManager opens /messaging/conversations/current/:churchId/streamingLive/:id with it
            id: app.deps.secrets.encrypt(s.id),
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
    },
  );
}
