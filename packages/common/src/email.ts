import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineJob } from './queue';

type SendGridMail = typeof import('@sendgrid/mail');
type SendGridClient = typeof import('@sendgrid/client');

/** One outgoing message; the dev mailbox stores exactly these fields. */
export const EmailMessage = z.object({
  to: z.string().min(3),
  from: z.string().optional(),
  subject: z.string(),
  html: z.string(),
  text: z.string().optional(),
});
export type EmailMessage = z.output<typeof EmailMessage>;

export interface Mailer {
  readonly kind: 'sendgrid' | 'mailbox';
  send(message: EmailMessage): Promise<void>;
}

export interface MailerOptions {
  from: string;
  sendgridApiKey?: string;
  /** the SendGrid API's base address; tests point it at a fake on loopback */
  sendgridBaseUrl?: string;
  /** where the dev mailbox keeps messages when SendGrid is not configured */
  mailDir: string;
}

/** SendGrid through its SDK when an API key is configured, otherwise one JSON file per message. */
export async function createMailer(options: MailerOptions): Promise<Mailer> {
  if (!options.sendgridApiKey) return mailbox(options.mailDir, options.from);
  // The SDKs export singletons; their classes give this mailer its own client and base address.
  const { MailService } = require('@sendgrid/mail') as { MailService: new () => SendGridMail };
  const { Client } = require('@sendgrid/client') as { Client: new () => SendGridClient };
  const client = new Client();
  client.setApiKey(options.sendgridApiKey);
  if (options.sendgridBaseUrl) client.setDefaultRequest('baseUrl', options.sendgridBaseUrl);
  const service = new MailService();
  service.setClient(client);
  return {
    kind: 'sendgrid',
    async send(message) {
      await service.send({
        to: message.to,
        from: message.from ?? options.from,
        subject: message.subject,
        html: message.html,
        text: message.text ?? stripTags(message.html),
      });
    },
  };
}

function mailbox(dir: string, from: string): Mailer {
  return {
    kind: 'mailbox',
    async send(message) {
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, `${Date.now()}-${randomUUID()}.json`);
      const stored = { to: message.to, from: message.from ?? from, subject: message.subject, html: message.html, text: message.text ?? stripTags(message.html) };
      await writeFile(file, JSON.stringify(stored, null, 2));
    },
  };
}

function stripTags(html: string): string {
  return html.replace(/<br\s*\/?>/gi, '\n').replace(/<[^>]+>/g, '').trim();
}

/** The `<module>.email` job every module that sends mail registers: delivery happens off the request. */
export function emailJob(module: string, mailer: () => Mailer) {
  return defineJob({
    name: `${module}.email`,
    schema: EmailMessage,
    attempts: 5,
    backoffMs: 2000,
    handler: async (message) => mailer().send(message),
  });
}

/** Escapes text for an HTML email body. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
