/**
 * An outside content provider (presentation and lesson content) the provider proxy forwards to. Every
 * adapter speaks its provider's own HTTP API; the proxy chooses one by `providerId`, keeps the church's
 * OAuth tokens and refreshes them before a call when they have expired.
 */
export interface ProviderToken {
  accessToken: string;
  refreshToken?: string | null;
  tokenType?: string | null;
  /** null: the provider gave no lifetime */
  expiresAt: Date | null;
  /** what the grant covers, when the provider says */
  scopes?: string | null;
}

/** A file of a presentation or playlist. */
export interface ContentFile {
  id: string;
  name: string;
  url: string;
  seconds?: number | null;
  mediaType?: string | null;
  thumbnail?: string | null;
}

/** A folder or a playable item in a provider's tree; `path` is what the next call passes back. */
export interface ContentItem {
  type: 'folder' | 'file';
  id: string;
  title: string;
  path: string;
  image?: string | null;
  file?: ContentFile;
}

export interface Presentation {
  id: string;
  name: string;
  actionType: string;
  files: ContentFile[];
}

export interface PlanSection {
  id: string;
  name: string;
  presentations: Presentation[];
}

export interface PresentationPlan {
  id: string;
  name: string;
  image?: string | null;
  sections: PlanSection[];
  allFiles: ContentFile[];
}

export interface InstructionItem {
  id: string;
  itemType: 'section' | 'action';
  label: string;
  description?: string | null;
  actionType?: string | null;
  seconds?: number | null;
  files?: ContentFile[];
  children?: InstructionItem[];
}

export interface Instructions {
  venueName: string;
  items: InstructionItem[];
}

/** A provider call's failure that the proxy may cure by refreshing the access token (the provider said 401). */
export class ProviderUnauthorized extends Error {}

export interface ContentProvider {
  readonly id: string;
  readonly name: string;
  /** whether browsing needs the church's token (public catalogs work without one) */
  readonly requiresAuth: boolean;
  refresh(refreshToken: string): Promise<ProviderToken>;
  /**
   * the OAuth authorization-code grant with PKCE (RFC 6749 §4.1.3, RFC 7636): the code a sign-in page gave the
   * app, exchanged server-side where the client secret is; absent when the provider has no such sign-in
   */
  exchangeCode?(code: string, codeVerifier: string, redirectUri: string): Promise<ProviderToken>;
  browse(path: string, token: string | null): Promise<ContentItem[]>;
  getPresentations(path: string, token: string | null): Promise<PresentationPlan>;
  getPlaylist(path: string, token: string | null, resolution?: number): Promise<ContentFile[]>;
  getInstructions(path: string, token: string | null): Promise<Instructions>;
  getExpandedInstructions(path: string, token: string | null): Promise<Instructions>;
}
