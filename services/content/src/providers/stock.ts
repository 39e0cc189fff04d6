import { notConfigured } from '@church/common';
import { fetchJson, joinUrl } from '@church/common';

/** One stock photo as the API answers it. */
export interface StockPhoto {
  id: string;
  url: string;
  thumbnail: string;
  description: string;
  photographer: string;
  photographerUrl: string;
  source: string;
  license: string;
}

export interface StockPhotos {
  search(term: string, perPage?: number): Promise<StockPhoto[]>;
}

interface PexelsPhoto {
  id: number;
  url?: string;
  alt?: string;
  photographer?: string;
  photographer_url?: string;
  src?: Record<string, string>;
}

/**
 * Pexels photo search on its documented HTTP API (https://www.pexels.com/api/documentation/#photos-search).
 * The official `pexels` client hard-codes `https://api.pexels.com` and reads the global fetch, so it cannot be
 * pointed at a loopback fake; this adapter speaks the same API with the base URL overridable.
 */
export function pexelsStock(opts: { apiKey?: string; baseUrl?: string }): StockPhotos {
  const base = opts.baseUrl ?? 'https://api.pexels.com';
  return {
    async search(term, perPage = 30) {
      if (!opts.apiKey) throw notConfigured('Stock photo search (Pexels)', 'PEXELS_API_KEY');
      const url = joinUrl(base, `/v1/search?query=${encodeURIComponent(term)}&per_page=${perPage}`);
      const res = await fetchJson<{ photos?: PexelsPhoto[] }>('Stock photo search (Pexels)', url, { headers: { authorization: opts.apiKey } });
      return (res.data?.photos ?? []).map((p) => ({
        id: String(p.id),
        url: p.src?.large2x ?? p.src?.large ?? p.src?.original ?? '',
        thumbnail: p.src?.medium ?? p.src?.small ?? p.src?.tiny ?? '',
        description: p.alt ?? '',
        photographer: p.photographer ?? '',
        photographerUrl: p.photographer_url ?? '',
        source: 'pexels',
        license: 'Pexels License',
      }));
    },
  };
}
