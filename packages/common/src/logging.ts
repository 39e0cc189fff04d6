/** Query parameters whose values never reach a log line (addresses, secrets, one-time codes). */
const SECRET_PARAMS = /^(e-?mail|useremail|token|jwt|code|password|authguid|key|apikey|secret|refresh_token|access_token|client_secret|phone)$/i;

/** A URL with the values of its personal or secret query parameters replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // a malformed name is logged as sent
      }
      return eq !== -1 && SECRET_PARAMS.test(decoded) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

type LoggedError = Error & { code?: string; params?: unknown; detail?: string; cause?: unknown };

/**
 * An error as it may be logged: a failed query's bound parameters (personal data, password hashes) and the
 * values PostgreSQL echoes in `detail` (`Key (email)=(…) already exists`) are left out.
 */
export function redactError(err: LoggedError): { [key: string]: unknown; type: string; message: string; stack: string } {
  const out: { [key: string]: unknown; type: string; message: string; stack: string } = {
    type: err.name,
    message: String(err.message ?? '').replace(/\nparams:[\s\S]*$/, '\nparams: [redacted]'),
    stack: String(err.stack ?? '').replace(/\nparams:[\s\S]*?(\n\s+at |$)/, '\nparams: [redacted]$1'),
  };
  if (err.code) out.code = err.code;
  if (err.cause && typeof err.cause === 'object') {
    const cause = err.cause as LoggedError;
    out.cause = { type: cause.name, message: cause.message, code: cause.code, ...(cause.detail ? { detail: '[redacted]' } : {}) };
  }
  return out;
}

/** pino serializers for every service and the gateway: request lines without secrets, errors without data. */
export const logSerializers = {
  req(req: { method: string; url: string; ip?: string; headers?: { host?: string }; socket?: { remotePort?: number } }) {
    return { method: req.method, url: redactUrl(req.url), host: req.headers?.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
  },
  err: (err: Error) => redactError(err),
};
