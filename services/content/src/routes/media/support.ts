import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { SpeechAudio, SpeechBody } from '../../schemas/media';

/** `/content/support`: speech audio. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.post('/content/support/createAudio', { config: { access: 'public' }, schema: { body: SpeechBody, produces: ['audio/mpeg'], response: { 200: SpeechAudio } } }, async (req, reply) => {
    const audio = await contentDeps(app).providers.speech.synthesize(req.body.ssml);
    return reply.type('audio/mpeg').header('content-disposition', 'inline; filename="speech.mp3"').send(audio);
  });
}
