/**
 * The bundled stock images: simple gradient backgrounds drawn for this project as SVG and dedicated to the
 * public domain (CC0), so the embedded default has images to pick from with no outside service. They are
 * served inline as `data:` URLs, so no file host is needed either.
 */
const PALETTES: Record<string, Array<[string, string, string]>> = {
  backgrounds: [
    ['sunrise', '#f6d365', '#fda085'],
    ['ocean', '#2193b0', '#6dd5ed'],
    ['dusk', '#41295a', '#2f0743'],
    ['meadow', '#56ab2f', '#a8e063'],
    ['slate', '#2c3e50', '#4ca1af'],
  ],
  worship: [
    ['candle', '#ff9966', '#ff5e62'],
    ['heaven', '#e0eafc', '#cfdef3'],
    ['royal', '#141e30', '#243b55'],
  ],
  nature: [
    ['forest', '#134e5e', '#71b280'],
    ['desert', '#c79081', '#dfa579'],
    ['sky', '#89f7fe', '#66a6ff'],
  ],
};

function svg(from: string, to: string): string {
  const body = `<svg xmlns="http://www.w3.org/2000/svg" width="1920" height="1080" viewBox="0 0 1920 1080"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs><rect width="1920" height="1080" fill="url(#g)"/></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(body).toString('base64')}`;
}

export interface BundledImage {
  folder: string;
  image: string;
  url: string;
  license: string;
}

// Looked up by the caller's folder name: a Map, so `__proto__` or `constructor` is just an unknown folder.
const FOLDERS = new Map(Object.entries(PALETTES));

/** The bundled images of a folder; an unknown folder has none. */
export function bundledStock(folder: string): BundledImage[] {
  return (FOLDERS.get(folder.toLowerCase()) ?? []).map(([name, from, to]) => ({ folder: folder.toLowerCase(), image: `${name}.svg`, url: svg(from, to), license: 'CC0 1.0 (public domain)' }));
}
