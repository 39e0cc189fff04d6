import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

interface SdkRequest {
  protocol: string;
  hostname: string;
  port?: number;
  method: string;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: unknown;
}

/**
 * An HTTP/1.1 request handler for AWS SDK clients (the smithy `HttpHandler` shape). The Polly client's
 * default handler speaks only HTTP/2 (for its bidirectional streaming operation); `SynthesizeSpeech` is a
 * plain REST call that Polly serves over HTTP/1.1 as well, and so does an endpoint on loopback in tests.
 */
export function http1Handler(timeoutMs = 30_000) {
  return {
    metadata: { handlerProtocol: 'http/1.1' },
    async handle(req: SdkRequest): Promise<{ response: { statusCode: number; reason?: string; headers: Record<string, string>; body: IncomingMessage } }> {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(req.query ?? {})) {
        if (v === null) params.append(k, '');
        else for (const one of [v].flat()) params.append(k, one);
      }
      const qs = params.toString();
      const send = req.protocol === 'https:' ? httpsRequest : httpRequest;
      return new Promise((resolve, reject) => {
        const r = send({ hostname: req.hostname, port: req.port, method: req.method, path: qs ? `${req.path}?${qs}` : req.path, headers: req.headers }, (res) => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ response: { statusCode: res.statusCode ?? 0, reason: res.statusMessage, headers, body: res } });
        });
        r.setTimeout(timeoutMs, () => r.destroy(new Error(`timed out after ${timeoutMs} ms`)));
        r.on('error', reject);
        const body = req.body;
        if (body instanceof Readable) body.pipe(r);
        else r.end(typeof body === 'string' || body instanceof Uint8Array ? body : undefined);
      });
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs() {
      return {};
    },
    destroy() {},
  };
}
