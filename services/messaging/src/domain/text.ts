import { createRequire } from 'node:module';

type Convert = (html: string, options?: Record<string, unknown>) => string;

/**
 * html-to-text is a dependency of @church/common; this service reaches it through that package's resolution.
 * Should it be missing, a small converter keeps paragraphs and links (`text (url)`) on their own lines.
 */
let convert: Convert | undefined;
try {
  const commonRequire = createRequire(require.resolve('@church/common'));
  convert = (commonRequire('html-to-text') as { convert: Convert }).convert;
} catch {
  convert = undefined;
}

export function htmlToText(html: string): string {
  if (convert) {
    return convert(html, {
      wordwrap: false,
      selectors: [
        { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
        { selector: 'img', format: 'skip' },
      ],
    }).trim();
  }
  return fallbackText(html);
}

export function fallbackText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<a\s[^>]*href=["']([^"']+)["'][^>]*>([\s\S]*?)<\/a>/gi, (_m, href: string, text: string) => {
      const label = text.replace(/<[^>]+>/g, '').trim();
      return label && label !== href ? `${label} [${href}]` : href;
    })
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr|table|ul|ol)>/gi, '\n\n')
    .replace(/<li[^>]*>/gi, ' * ')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
