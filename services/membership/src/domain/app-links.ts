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

/**
 * How long the apps' set-password page (the login package's `LoginSetPassword`) accepts a link after its
 * `timestamp`: it refuses a link without one, or whose `timestamp` (milliseconds) is more than this old.
 */
export const APP_LINK_WINDOW_MS = 10 * 60 * 1000;

/**
 * `<appUrl>/<page>?auth=<guid>&timestamp=<ms>`: where the app picks the guid up. With `expiresAt`, `timestamp` is
 * put 10 minutes before the link's expiry, so the page's own 10-minute check refuses the link exactly when this
 * service does (a 24-hour welcome link opened after an hour still works in the page); without it, no timestamp.
 */
export function appLink(appUrl: string, page: string, authGuid?: string, expiresAt?: Date): string {
  const url = new URL(appUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${page}`;
  if (authGuid) url.searchParams.set('auth', authGuid);
  if (authGuid && expiresAt) url.searchParams.set('timestamp', String(expiresAt.getTime() - APP_LINK_WINDOW_MS));
  url.hash = '';
  return url.toString();
}

/** The app name as it goes into a subject or body: escaped (a subject is shown as text, so it carries no markup). */
export const appNameText = (appName: string | undefined) => escapeHtml(appName || DEFAULT_APP_NAME);
