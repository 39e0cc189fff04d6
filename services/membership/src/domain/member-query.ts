import type { Condition } from '../lib/advanced-search';

/**
 * A deterministic reader of plain-English member searches ("women over 40 in the youth group"): each rule
 * is a pattern that, when found, adds advanced-search conditions and blanks its words so that later rules
 * do not read them again. Rules run most specific first. Everything is pure; `now` fixes relative dates.
 */
export interface ParsedQuery {
  conditions: Condition[];
  /** false when nothing in the text was understood (the caller then answers no people, not everyone) */
  recognized: boolean;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH = `(${MONTHS.join('|')}|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)`;
const UNITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const DECADES = ['', '', 'twenties', 'thirties', 'forties', 'fifties', 'sixties', 'seventies', 'eighties', 'nineties'];
/** Words that end a captured name (a group, a city) so "the youth group born in May" stays apart. */
const STOP = '(?!(?:the|in|of|on|and|or|who|with|that|born|over|under|at|from|are|is)\\b)';
const WORD = `${STOP}[\\w'&.-]+`;

const monthOf = (name: string) => MONTHS.findIndex((m) => m.startsWith(name.toLowerCase().slice(0, 3))) + 1;
const iso = (d: Date) => d.toISOString().slice(0, 10);
const utc = (y: number, m: number, d: number) => new Date(Date.UTC(y, m, d));

/** Spelled-out numbers to digits: "forty-five" → 45, "thirties" → 30s. */
function digitsForWords(text: string): string {
  return text
    .replace(new RegExp(`\\b(${DECADES.slice(2).join('|')})\\b`, 'gi'), (w) => `${DECADES.indexOf(w.toLowerCase()) * 10}s`)
    .replace(new RegExp(`\\b(${TENS.slice(2).join('|')})(?:[ -](${UNITS.slice(1, 10).join('|')}))?\\b`, 'gi'), (_m, t: string, u?: string) =>
      String(TENS.indexOf(t.toLowerCase()) * 10 + (u ? UNITS.indexOf(u.toLowerCase()) : 0)),
    )
    .replace(new RegExp(`\\b(${UNITS.join('|')})\\b`, 'gi'), (w) => String(UNITS.indexOf(w.toLowerCase())));
}

/** Start and end dates (inclusive) of "this/last week|month|year", weeks starting on Sunday. */
function period(which: string, unit: string, now: Date): [Date, Date] {
  const back = which.toLowerCase() === 'last' ? 1 : 0;
  const [y, m, d] = [now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()];
  if (unit.startsWith('week')) {
    const start = utc(y, m, d - now.getUTCDay() - 7 * back);
    return [start, utc(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate() + 6)];
  }
  if (unit.startsWith('month')) return [utc(y, m - back, 1), utc(y, m - back + 1, 0)];
  return [utc(y - back, 0, 1), utc(y - back, 11, 31)];
}

/** Start date of "the last N days|weeks|months|years" ending today. */
function since(n: number, unit: string, now: Date): Date {
  const [y, m, d] = [now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()];
  if (unit.startsWith('day')) return utc(y, m, d - n);
  if (unit.startsWith('week')) return utc(y, m, d - 7 * n);
  if (unit.startsWith('month')) return utc(y, m - n, d);
  return utc(y - n, m, d);
}

export function parseMemberQuery(input: string, now: Date = new Date()): ParsedQuery {
  let text = ` ${digitsForWords(input.replace(/[’‘]/g, "'").replace(/[“”]/g, '"')).replace(/[?!,;:]+|\.(?=\s|$)/g, ' ').replace(/\s+/g, ' ').trim()} `;
  const conditions: Condition[] = [];
  const genders = new Set<string>();
  const statuses = new Set<string>();
  let recognized = false;
  const add = (field: string, operator: Condition['operator'], value: Condition['value']) => conditions.push({ field, operator, value });
  const rule = (pattern: string, apply: (m: string[]) => void) => {
    text = text.replace(new RegExp(pattern, 'gi'), (...m: unknown[]) => {
      apply(m.slice(0, -2) as string[]);
      recognized = true;
      return ' ';
    });
  };
  const thisMonth = now.getUTCMonth() + 1;
  const relativeMonth = (which: string) => ((thisMonth - 1 + (which.toLowerCase() === 'next' ? 1 : which.toLowerCase() === 'last' ? -1 : 0) + 12) % 12) + 1;
  const addedBetween = (from: Date, to: Date) => add('createdAt', 'between', [iso(from), iso(to)]);

  // Group names first: they may contain words other rules know ("the young adults group"). "Members of
  // the choir" means the group, not the membership status; "members of the church" means the status.
  rule(`\\bmembers? of (?:the|our|this) (?:church|congregation)\\b`, () => statuses.add('Member'));
  rule(`\\b(?:members? of|in|of|on|from|attending) (?:the )?(?:group |team )?"([^"]+)"`, (m) => add('groupName', 'contains', m[1]!.trim()));
  rule(`\\b(?:members? of|in|of|on|from|attending|part of) (?:the |a )?((?:${WORD} ){1,4}?)(?:small group|group|team|ministry|class|bible study)s?\\b`, (m) =>
    add('groupName', 'contains', m[1]!.trim()),
  );
  rule(`\\bin (?:the )?group (?:named |called )?(${WORD}(?: ${WORD}){0,3})`, (m) => add('groupName', 'contains', m[1]!.trim()));
  rule(`\\bmembers? of (?:the )?(${WORD}(?: ${WORD}){0,2})`, (m) => add('groupName', 'contains', m[1]!.trim()));

  // Birth and anniversary dates.
  rule(`\\bborn between (\\d{4}) and (\\d{4})\\b`, (m) => add('birthDate', 'between', [`${m[1]}-01-01`, `${m[2]}-12-31`]));
  rule(`\\bborn (before|after|in) (\\d{4})\\b`, (m) => {
    const which = m[1]!.toLowerCase();
    if (which === 'before') add('birthDate', 'lessThan', `${m[2]}-01-01`);
    else if (which === 'after') add('birthDate', 'greaterThan', `${m[2]}-12-31`);
    else add('birthDate', 'between', [`${m[2]}-01-01`, `${m[2]}-12-31`]);
  });
  rule(`\\b(?:born|(?:with (?:a |their )?)?birthdays?) (?:in|during) ${MONTH}\\b`, (m) => add('birthMonth', 'equals', monthOf(m[1]!)));
  rule(`\\b${MONTH} (?:birthdays?|babies)\\b`, (m) => add('birthMonth', 'equals', monthOf(m[1]!)));
  rule(`\\b(?:(?:with (?:a |their )?)?birthdays?|born) (this|next|last) month\\b`, (m) => add('birthMonth', 'equals', relativeMonth(m[1]!)));
  rule(`\\banniversar(?:y|ies) (?:in|during) ${MONTH}\\b`, (m) => add('anniversaryMonth', 'equals', monthOf(m[1]!)));
  rule(`\\b${MONTH} anniversar(?:y|ies)\\b`, (m) => add('anniversaryMonth', 'equals', monthOf(m[1]!)));
  rule(`\\banniversar(?:y|ies) (this|next|last) month\\b`, (m) => add('anniversaryMonth', 'equals', relativeMonth(m[1]!)));

  // When people were added.
  rule(`\\b(?:(?:added|joined|created|registered|new|signed up)\\s+)?(?:in |during )?the (?:last|past) (\\d+) (days?|weeks?|months?|years?)\\b`, (m) =>
    addedBetween(since(Number(m[1]), m[2]!.toLowerCase(), now), now),
  );
  rule(`\\b(?:(?:added|joined|created|registered|new|signed up)\\s+)?(this|last) (week|month|year)\\b`, (m) => addedBetween(...period(m[1]!, m[2]!.toLowerCase(), now)));
  rule(`\\b(?:added|joined|created|registered|new) (today|yesterday)\\b`, (m) => {
    const day = utc(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (m[1]!.toLowerCase() === 'yesterday' ? 1 : 0));
    add('createdAt', 'equals', iso(day));
  });
  rule(`\\b(?:added|joined|created|registered) (?:in|during) ${MONTH}(?: (\\d{4}))?\\b`, (m) => {
    const year = m[2] ? Number(m[2]) : now.getUTCFullYear();
    const month = monthOf(m[1]!) - 1;
    addedBetween(utc(year, month, 1), utc(year, month + 1, 0));
  });
  rule(`\\b(?:added|joined|created|registered) (?:in|during) (\\d{4})\\b`, (m) => add('createdAt', 'between', [`${m[1]}-01-01`, `${m[1]}-12-31`]));
  rule(`\\b(?:recently added|newcomers|new people)\\b`, () => addedBetween(since(30, 'days', now), now));

  // Ages.
  rule(`\\bin (?:their|his|her) (\\d)0s\\b`, (m) => add('age', 'between', [Number(m[1]) * 10, Number(m[1]) * 10 + 9]));
  rule(`\\b(?:between|aged|ages|age) (\\d{1,3}) ?(?:and|to|-) ?(\\d{1,3})(?: years old| years of age)?\\b`, (m) => add('age', 'between', [Number(m[1]), Number(m[2])]));
  rule(`\\b(\\d{1,3}) ?(?:to|-) ?(\\d{1,3}) years? old\\b`, (m) => add('age', 'between', [Number(m[1]), Number(m[2])]));
  rule(`\\b(over|older than|above|more than|greater than|at least) (?:the age of |age )?(\\d{1,3})(?: years old| years of age)?\\b`, (m) =>
    add('age', 'greaterThan', Number(m[2]) - (m[1]!.toLowerCase() === 'at least' ? 1 : 0)),
  );
  rule(`\\b(\\d{1,3})(?: years old)? (?:and|or) (?:over|older|up|above)\\b|\\b(\\d{1,3})\\+`, (m) => add('age', 'greaterThan', Number(m[1] ?? m[2]) - 1));
  rule(`\\b(under|younger than|below|less than|at most) (?:the age of |age )?(\\d{1,3})(?: years old| years of age)?\\b`, (m) =>
    add('age', 'lessThan', Number(m[2]) + (m[1]!.toLowerCase() === 'at most' ? 1 : 0)),
  );
  rule(`\\b(\\d{1,3})(?: years old)? (?:and|or) (?:under|younger|below)\\b`, (m) => add('age', 'lessThan', Number(m[1]) + 1));
  rule(`\\b(?:aged|age) (\\d{1,3})\\b|\\b(\\d{1,3}) years? olds?\\b`, (m) => add('age', 'equals', Number(m[1] ?? m[2])));

  // Names and places.
  rule(`\\b(?:with (?:the |a )?|whose )(?:last name|surname|family name)(?: is| of)? (${WORD})`, (m) => add('lastName', 'equals', m[1]!));
  rule(`\\b(?:with (?:the |a )?|whose )first name(?: is| of)? (${WORD})`, (m) => add('firstName', 'equals', m[1]!));
  rule(`\\b(?:named|called) (${WORD})`, (m) => add('firstName', 'equals', m[1]!));
  rule(`\\bthe (${WORD}) family\\b`, (m) => add('lastName', 'equals', m[1]!));
  rule(`\\b(?:who )?(?:live|lives|living|reside|resides|residing) in (${WORD}(?: ${WORD}){0,2})`, (m) => add('city', 'equals', m[1]!));

  // Household roles and marital status.
  rule(`\\b(?:heads? of (?:the )?households?|household heads?)\\b`, () => add('householdRole', 'equals', 'Head'));
  rule(`\\bspouses\\b`, () => add('householdRole', 'equals', 'Spouse'));
  rule(`\\bhusbands\\b`, () => (genders.add('Male'), add('maritalStatus', 'equals', 'Married')));
  rule(`\\bwives\\b`, () => (genders.add('Female'), add('maritalStatus', 'equals', 'Married')));
  rule(`\\bwidows\\b`, () => (genders.add('Female'), add('maritalStatus', 'equals', 'Widowed')));
  rule(`\\bwidowers\\b`, () => (genders.add('Male'), add('maritalStatus', 'equals', 'Widowed')));
  rule(`\\bmarried\\b`, () => add('maritalStatus', 'equals', 'Married'));
  rule(`\\b(?:single|singles|unmarried)\\b`, () => add('maritalStatus', 'equals', 'Single'));
  rule(`\\bwidowed\\b`, () => add('maritalStatus', 'equals', 'Widowed'));
  rule(`\\bdivorced\\b`, () => add('maritalStatus', 'equals', 'Divorced'));

  // Gender and age groups.
  rule(`\\bboys?\\b`, () => (genders.add('Male'), add('age', 'lessThan', 18)));
  rule(`\\bgirls?\\b`, () => (genders.add('Female'), add('age', 'lessThan', 18)));
  rule(`\\b(?:men|man|males?|guys|gentlemen|brothers)\\b`, () => genders.add('Male'));
  rule(`\\b(?:women|woman|females?|ladies|lady|sisters)\\b`, () => genders.add('Female'));
  rule(`\\byoung adults\\b`, () => add('age', 'between', [18, 29]));
  rule(`\\b(?:children|kids|minors)\\b`, () => add('age', 'lessThan', 18));
  rule(`\\b(?:teens|teenagers)\\b`, () => add('age', 'between', [13, 19]));
  rule(`\\badults\\b`, () => add('age', 'greaterThan', 17));
  rule(`\\b(?:seniors|senior citizens|elderly)\\b`, () => add('age', 'greaterThan', 64));

  // Membership statuses; "members of the church" is the status, "members of X" above was a group.
  rule(`\\b(?:non-?members|not members)\\b`, () => add('membershipStatus', 'notEquals', 'Member'));
  rule(`\\bstaff(?: members)?\\b`, () => statuses.add('Staff'));
  rule(`\\b(?:regular attendees?|regulars)\\b`, () => statuses.add('Regular Attendee'));
  rule(`\\bmembers?\\b`, () => statuses.add('Member'));
  rule(`\\b(?:first[- ]time (?:guests|visitors)|visitors?)\\b`, () => statuses.add('Visitor'));
  rule(`\\bguests?\\b`, () => statuses.add('Guest'));
  rule(`\\bopted[- ]out\\b`, () => add('optedOut', 'equals', true));
  rule(`\\b(?:everyone|everybody|all people|all persons|all)\\b`, () => undefined);

  if (genders.size) conditions.unshift(genders.size === 1 ? { field: 'gender', operator: 'equals', value: [...genders][0]! } : { field: 'gender', operator: 'in', value: [...genders] });
  if (statuses.size) conditions.unshift(statuses.size === 1 ? { field: 'membershipStatus', operator: 'equals', value: [...statuses][0]! } : { field: 'membershipStatus', operator: 'in', value: [...statuses] });
  return { conditions, recognized };
}
