import type { MembershipDeps } from '../deps';
import { outboxJobs } from '../repos/extras';

/** Which settings of the server are configured (server admins' health screen), by group; values only where harmless. */
export function serverHealth(c: MembershipDeps['config']) {
  const has = (v: unknown) => v !== undefined && v !== null && String(v).trim() !== '';
  const item = (key: string, label: string, value: unknown, detail?: string) => ({ key, label, configured: has(value), ...(detail ? { detail } : {}) });
  return {
    environment: c.NODE_ENV,
    groups: [
      { group: 'Core', items: [item('environment', 'Environment', c.NODE_ENV, c.NODE_ENV), item('jwtSecret', 'JWT Secret', c.JWT_SECRET), item('encryptionKey', 'Encryption Key', c.ENCRYPTION_KEY), item('appUrl', 'App URL', c.APP_URL, c.APP_URL)] },
      { group: 'Email', items: [item('mailSystem', 'Mail System', c.SENDGRID_API_KEY, c.SENDGRID_API_KEY ? 'SendGrid' : 'development mailbox'), item('mailFrom', 'Mail From', c.MAIL_FROM, c.MAIL_FROM)] },
      { group: 'Storage', items: [item('s3Bucket', 'S3 Bucket', c.S3_BUCKET), item('filesBaseUrl', 'Files Base URL', c.FILES_BASE_URL, c.FILES_BASE_URL)] },
      { group: 'Queue', items: [item('redis', 'Redis', c.REDIS_URL, c.REDIS_URL ? 'BullMQ' : 'in-process')] },
      { group: 'AI', items: [item('openAiApiUrl', 'OpenAI-compatible API', c.OPENAI_API_URL), item('openAiApiKey', 'OpenAI API Key', c.OPENAI_API_KEY)] },
      { group: 'Integrations', items: [item('proxyConfigUrl', 'Reverse proxy configuration', c.PROXY_CONFIG_URL), item('membershipPublicUrl', 'Membership public URL', c.MEMBERSHIP_PUBLIC_URL, c.MEMBERSHIP_PUBLIC_URL)] },
      { group: 'Database Connections', items: [item('db_membership', 'membership database', c.DATABASE_URL, c.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite')] },
    ],
  };
}

/** Membership's background jobs: the latest runs and failures of its outbox, and the queue's depth. */
export async function jobsHealth(deps: Pick<MembershipDeps, 'database' | 'queue'>) {
  const { latest, failures } = await outboxJobs(deps.database);
  const run = (r: (typeof latest)[number]) => ({
    id: r.id,
    jobName: r.name,
    status: r.state === 'failed' ? 'failed' : r.state === 'done' ? 'success' : r.state,
    startedAt: r.sent_at ?? r.created_at,
    durationMs: null,
    errorMessage: r.last_error,
  });
  return { latest: latest.map(run), recentFailures: failures.map(run), depth: await deps.queue.depth() };
}
