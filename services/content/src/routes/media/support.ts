import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodTypeProvider } from '@church/common';
import { mediaDeps } from '../../domain/media/deps';

/** Polly's limit on SSML characters per request. */
export const MAX_SSML = 6000;

/** `/content/support`: speech audio. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/content/support/createAudio',
    {
      config: { access: 'public' },
      schema: {
        body: z.object({
          ssml: z
            .string()
            .trim()
            .min(1, 'is required')
            .max(MAX_SSML, `at most ${MAX_SSML} characters`)
            .refine((s) => /^<speak(\s[^>]*)?>[\s\S]*<\/speak>$/.test(s), 'must be speech markup starting with a <speak> element'),
        }),
      },
    },
    async (req, reply) => {
      const audio = await mediaDeps(app).providers.speech.synthesize(req.body.ssml);
      return reply.type('audio/mpeg').header('content-disposition', 'inline; filename="speech.mp3"').send(audio);
    },
  );
}
