import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { convert } from 'html-to-text';
import type { ModuleName } from './config';
import { DELIVERY_RETRIES, handle, jobContract, type JobContract } from './queue';

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
        text: message.text ?? plainText(message.html),
      });
    },
  };
}

function mailbox(dir: string, from: string): Mailer {
  return {
    kind: 'mailbox',
    async send(message) {
      const file = path.join(dir, `${Date.now()}-${randomUUID()}.json`);
      const stored = { to: message.to, from: message.from ?? from, subject: message.subject, html: message.html, text: message.text ?? plainText(message.html) };
      const body = JSON.stringify(stored, null, 2);
      // The folder is made when a write finds it missing (the first message, or after someone emptied it away),
      // not before every message: receipts of a webhook burst are thousands of sends.
      try {
        await writeFile(file, body);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        await mkdir(dir, { recursive: true });
        await writeFile(file, body);
      }
    },
  };
}

/**
 * The plain-text alternative of an HTML email (html-to-text): paragraphs and line breaks kept, entities decoded,
 * and every link on a line of its own, written out whole, so a plain-text reader's link works as written.
 */
export function plainText(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', format: 'linkOnOwnLine' },
      { selector: 'img', format: 'skip' },
      { selector: 'h1', options: { uppercase: false } },
      { selector: 'h2', options: { uppercase: false } },
      { selector: 'h3', options: { uppercase: false } },
    ],
    formatters: {
      // The link's words, then its address alone on the next line (entities already decoded by the parser).
      linkOnOwnLine: (elem, walk, builder) => {
        const href = (elem as { attribs?: Record<string, string> }).attribs?.href?.trim();
        const text = textOf(elem).trim();
        if (!href || /^(mailto:|#)/i.test(href)) return walk(elem.children, builder);
        if (text && text !== href) walk(elem.children, builder);
        builder.addLineBreak();
        builder.addInline(href, { noWordTransform: true });
        builder.addLineBreak();
      },
    },
  })
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

type Node = { type?: string; data?: string; children?: Node[] };
function textOf(node: Node): string {
  if (node.type === 'text') return node.data ?? '';
  return (node.children ?? []).map(textOf).join('');
}

const emailContracts = new Map<ModuleName, JobContract<typeof EmailMessage>>();

/**
 * The `<module>.email` job of a module, as a contract: what a route enqueues (`queue.enqueue(emailOf('giving'),
 * {to, subject, html}, {tx})`), typed, instead of a job named by a string. A mail promised to a person (a reset
 * link, a receipt) outlasts an outage of the provider or the queue (the delivery retries).
 */
export function emailOf(module: ModuleName): JobContract<typeof EmailMessage> {
  let contract = emailContracts.get(module);
  if (!contract) emailContracts.set(module, (contract = jobContract({ name: `${module}.email`, schema: EmailMessage, ...DELIVERY_RETRIES })));
  return contract;
}

/** The `<module>.email` job every module that sends mail registers: delivery happens off the request. */
export function emailJob(module: ModuleName, mailer: () => Mailer) {
  return handle(emailOf(module), async (message) => mailer().send(message));
}

/** Escapes text for an HTML email body. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
