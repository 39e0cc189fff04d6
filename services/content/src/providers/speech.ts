import { PollyClient, SynthesizeSpeechCommand, type VoiceId } from '@aws-sdk/client-polly';
import { notConfigured, providerFailed, providerMessage } from '@church/common';
import { http1Handler } from './http1-handler';

export interface Speech {
  /** MP3 bytes of the SSML */
  synthesize(ssml: string): Promise<Buffer>;
}

/** Amazon Polly through `@aws-sdk/client-polly`; endpoint overridable so tests drive the SDK against a fake. */
export function pollySpeech(opts: { region?: string; accessKeyId?: string; secretAccessKey?: string; endpoint?: string; voice?: string }): Speech {
  let client: PollyClient | undefined;
  return {
    async synthesize(ssml) {
      if (!opts.accessKeyId || !opts.secretAccessKey) throw notConfigured('Speech (Amazon Polly)', 'POLLY_ACCESS_KEY_ID');
      client ??= new PollyClient({
        region: opts.region ?? 'us-east-1',
        endpoint: opts.endpoint,
        credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey },
        maxAttempts: 2,
        requestHandler: http1Handler(),
      });
      try {
        // The configured voice is any string: Polly itself refuses a name that is not one of its voices.
        const voice = (opts.voice ?? 'Joanna') as VoiceId;
        const res = await client.send(new SynthesizeSpeechCommand({ OutputFormat: 'mp3', Text: ssml, TextType: 'ssml', VoiceId: voice, Engine: 'standard' }));
        if (!res.AudioStream) throw new Error('no audio in the answer');
        return Buffer.from(await res.AudioStream.transformToByteArray());
      } catch (err) {
        throw providerFailed('Speech (Amazon Polly)', providerMessage(err));
      }
    },
  };
}
