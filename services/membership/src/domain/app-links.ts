import { z } from 'zod';
import { escapeHtml, type DbOrTx } from '@church/common';
import { findDomainByName } from '../repos/domains';

/** The app address links fall back to when `APP_URL` is not configured. */
export const DEFAULT_APP_URL = 'http://localhost:3000';

/** What the account emails name the app when a caller sends no `appName`. */
export const DEFAULT_APP_NAME = 'Church App';

/** `appName` as register, forgot and updateEmail accept it: one short line of text (it goes into subjects). */
export const AppName = z
  .string()
  .trim()
  .min(1)
  .max(60, 'must be at most 60 characters')
  .refine((v) => !/[\p{Cc}\p{Cf}]/u.test(v), 'must be one line of plain text');
export const AppUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) address' }).max(2000);

export interface LinkSettings {
  APP_URL?: string;
  ALLOWED_APP_ORIGINS?: string;
}

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return undefined;
  }
};

/** The default app address (`APP_URL`, else http://localhost:3000). */
export function defaultAppUrl(config: LinkSettings): string {
  return config.APP_URL || DEFAULT_APP_URL;
}

/** The origins the instance allows links to: the default app's, and each of `ALLOWED_APP_ORIGINS`. */
export function allowedOrigins(config: LinkSettings): Set<string> {
  const listed = (config.ALLOWED_APP_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean);
  return new Set([defaultAppUrl(config), ...listed].map(originOf).filter((o): o is string => Boolean(o)));
}

/**
 * The app address a mailed link may use: the caller's `appUrl` when its origin is allowed (the configured
 * list, or a custom domain of any church in membership's domain records, over http(s)), else the default app
 * address. An attacker's `appUrl` therefore never receives a genuine authGuid.
 */
export async function allowedAppUrl(db: DbOrTx, config: LinkSettings, appUrl: string | undefined): Promise<string> {
  const fallback = defaultAppUrl(config);
  if (!appUrl) return fallback;
  let url: URL;
  try {
    url = new URL(appUrl);
  } catch {
    return fallback;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return fallback;
  if (url.username || url.password) return fallback;
  if (allowedOrigins(config).has(url.origin.toLowerCase())) return appUrl;
  const churchDomain = await findDomainByName(db, url.hostname.toLowerCase());
  return churchDomain ? appUrl : fallback;
}

/** `<appUrl>/<page>?auth=<guid>`: where the app picks the guid up. */
export function appLink(appUrl: string, page: string, authGuid: string): string {
  const url = new URL(appUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${page}`;
  url.searchParams.set('auth', authGuid);
  url.hash = '';
  return url.toString();
}

/** The app name as it goes into a subject or body: escaped (a subject is shown as text, so it carries no markup). */
export const appNameText = (appName: string | undefined) => escapeHtml(appName || DEFAULT_APP_NAME);
