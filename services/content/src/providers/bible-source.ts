import { notConfigured } from '@church/common';
import { fetchJson, joinUrl } from '@church/common';

export interface SourceTranslation {
  sourceKey: string;
  abbreviation: string | null;
  name: string;
  nameLocal: string | null;
  description: string | null;
  language: string | null;
  countries: string | null;
  copyright: string | null;
}
export interface SourceBook {
  keyName: string;
  abbreviation: string | null;
  name: string;
  sort: number;
}
export interface SourceChapter {
  keyName: string;
  number: number;
}
export interface SourceVerse {
  verseKey: string;
  content: string;
}

/** An external Bible text source (API.Bible-style HTTP API). */
export interface BibleSource {
  readonly name: string;
  translations(): Promise<SourceTranslation[]>;
  copyright(sourceKey: string): Promise<string | null>;
  books(sourceKey: string): Promise<SourceBook[]>;
  chapters(sourceKey: string, bookKey: string): Promise<SourceChapter[]>;
  /** every verse of one chapter with its text */
  chapterVerses(sourceKey: string, chapterKey: string): Promise<SourceVerse[]>;
  /** the verses of a range (`JHN.3.16`-`JHN.4.2`) */
  passage(sourceKey: string, startKey: string, endKey: string): Promise<SourceVerse[]>;
  search(sourceKey: string, query: string, limit: number): Promise<SourceVerse[]>;
}

interface ContentNode {
  type?: string;
  name?: string;
  text?: string;
  attrs?: Record<string, unknown>;
  items?: ContentNode[];
}

/** Text per verse id of an API.Bible `content-type=json` answer (text nodes carry their `verseId`). */
export function versesOfContent(nodes: ContentNode[] | undefined): SourceVerse[] {
  const byVerse = new Map<string, string>();
  const walk = (list: ContentNode[] | undefined, para: boolean) => {
    for (const node of list ?? []) {
      if (node.type === 'text' && typeof node.text === 'string') {
        const verseId = node.attrs?.verseId;
        if (typeof verseId === 'string') byVerse.set(verseId, (byVerse.get(verseId) ?? '') + node.text);
      }
      if (node.items) walk(node.items, para || node.name === 'para');
    }
  };
  walk(nodes, false);
  return [...byVerse].map(([verseKey, content]) => ({ verseKey, content: content.replace(/\s+/g, ' ').trim() }));
}

const WHAT = 'The Bible source (API.Bible)';

/** API.Bible (https://scripture.api.bible): key in the `api-key` header, base URL overridable. */
export function apiBibleSource(opts: { apiKey?: string; baseUrl?: string }): BibleSource {
  const base = opts.baseUrl ?? 'https://api.scripture.api.bible';
  const get = async <T>(path: string): Promise<T | null> => {
    if (!opts.apiKey) throw notConfigured(WHAT, 'BIBLE_API_KEY');
    const res = await fetchJson<{ data: T }>(WHAT, joinUrl(base, path), { headers: { 'api-key': opts.apiKey, accept: 'application/json' } });
    return res.status === 404 ? null : (res.data?.data ?? null);
  };
  const enc = encodeURIComponent;
  const contentQuery = 'content-type=json&include-notes=false&include-titles=false&include-chapter-numbers=false&include-verse-numbers=false&include-verse-spans=false';
  return {
    name: 'api.bible',
    async translations() {
      const list =
        (await get<
          Array<{
            id: string;
            abbreviation?: string;
            abbreviationLocal?: string;
            name: string;
            nameLocal?: string;
            description?: string;
            language?: { id?: string; name?: string };
            countries?: Array<{ name?: string }>;
            copyright?: string;
          }>
        >('/v1/bibles')) ?? [];
      return list.map((b) => ({
        sourceKey: b.id,
        abbreviation: b.abbreviationLocal ?? b.abbreviation ?? null,
        name: b.name,
        nameLocal: b.nameLocal ?? null,
        description: b.description ?? null,
        language: b.language?.id ?? b.language?.name ?? null,
        countries: (b.countries ?? []).map((c) => c.name).filter(Boolean).join(', ') || null,
        copyright: b.copyright ?? null,
      }));
    },
    async copyright(sourceKey) {
      const bible = await get<{ copyright?: string; info?: string }>(`/v1/bibles/${enc(sourceKey)}`);
      return bible?.copyright ?? null;
    },
    async books(sourceKey) {
      const list = (await get<Array<{ id: string; abbreviation?: string; name: string; nameLong?: string }>>(`/v1/bibles/${enc(sourceKey)}/books`)) ?? [];
      return list.map((b, i) => ({ keyName: b.id, abbreviation: b.abbreviation ?? null, name: b.name, sort: i + 1 }));
    },
    async chapters(sourceKey, bookKey) {
      const list = (await get<Array<{ id: string; number: string }>>(`/v1/bibles/${enc(sourceKey)}/books/${enc(bookKey)}/chapters`)) ?? [];
      return list.filter((c) => /^\d+$/.test(c.number)).map((c) => ({ keyName: c.id, number: Number(c.number) }));
    },
    async chapterVerses(sourceKey, chapterKey) {
      const chapter = await get<{ content?: ContentNode[] }>(`/v1/bibles/${enc(sourceKey)}/chapters/${enc(chapterKey)}?${contentQuery}`);
      return versesOfContent(chapter?.content);
    },
    async passage(sourceKey, startKey, endKey) {
      const passage = await get<{ content?: ContentNode[] }>(`/v1/bibles/${enc(sourceKey)}/passages/${enc(`${startKey}-${endKey}`)}?${contentQuery}`);
      return versesOfContent(passage?.content);
    },
    async search(sourceKey, query, limit) {
      const found = await get<{ verses?: Array<{ id: string; text?: string }> }>(`/v1/bibles/${enc(sourceKey)}/search?query=${enc(query)}&limit=${limit}`);
      return (found?.verses ?? []).map((v) => ({ verseKey: v.id, content: v.text ?? '' }));
    },
  };
}
