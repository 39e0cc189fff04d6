import type { Claims } from '@church/auth';
import { validationFailed, type ErrorItem } from '@church/common';
import type { QueryStringParameter, ReportDefinition } from './definition';

// Parameter values of a run: the token's claims and the query string, validated and defaulted. Days are UTC
// days, as attendance reckons them (the token carries no church time zone).

export type ParamValue = string | number | null;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` of a UTC day. */
const iso = (d: Date) => d.toISOString().slice(0, 10);

/** A real calendar day (`2025-02-30` is not one). */
function isDay(text: string): boolean {
  const m = DAY.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return iso(d) === text && Number(m[1]) >= 1900 && Number(m[1]) <= 2200;
}

/** A date default (`today`, `lastSunday-7d`, `startOfYear`, `startOfQuarter-21m`, `startOfMonth-11m`) as a day, from `now`. */
export function dateDefault(expr: string, now: Date): string {
  if (isDay(expr)) return expr;
  const m = /^(today|lastSunday|startOfMonth|startOfQuarter|startOfYear)(?:([+-]\d+)([dwmy]))?$/.exec(expr);
  if (!m) throw new Error(`unknown date default ${expr}`);
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  let d =
    m[1] === 'today'
      ? today
      : m[1] === 'lastSunday'
        ? new Date(today.getTime() - today.getUTCDay() * 86_400_000)
        : m[1] === 'startOfMonth'
          ? new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1))
          : m[1] === 'startOfQuarter'
            ? new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - (today.getUTCMonth() % 3), 1))
            : new Date(Date.UTC(today.getUTCFullYear(), 0, 1));
  if (m[2]) {
    const n = Number(m[2]);
    if (m[3] === 'd' || m[3] === 'w') d = new Date(d.getTime() + n * (m[3] === 'w' ? 7 : 1) * 86_400_000);
    // Months and years move the calendar, clamping the day (31 March - 1 month is 28/29 February).
    else {
      const months = m[3] === 'm' ? n : n * 12;
      const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
      const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
      d = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth(), Math.min(d.getUTCDate(), lastDay)));
    }
  }
  return iso(d);
}

function integerDefault(value: string | number, now: Date): number {
  if (typeof value === 'number') return value;
  if (value === 'thisMonth') return now.getUTCMonth() + 1;
  if (value === 'thisYear') return now.getUTCFullYear();
  return Number(value);
}

/** One query-string value checked against its declaration; pushes an error item when it is wrong. */
function parseValue(p: QueryStringParameter, raw: string, errors: ErrorItem[]): ParamValue {
  const bad = (msg: string) => {
    errors.push({ msg, param: p.keyName, location: 'query' });
    return null;
  };
  if (p.options && !p.options.some((o) => o.value === raw)) return bad(`${p.keyName} must be one of ${p.options.map((o) => o.value).join(', ')}`);
  switch (p.type) {
    case 'date':
      return isDay(raw) ? raw : bad(`${p.keyName} must be a date (YYYY-MM-DD)`);
    case 'uuid':
      return UUID.test(raw) ? raw.toLowerCase() : bad(`${p.keyName} must be a UUID`);
    case 'integer': {
      if (!/^-?\d{1,9}$/.test(raw)) return bad(`${p.keyName} must be a whole number`);
      const n = Number(raw);
      if ((p.min !== undefined && n < p.min) || (p.max !== undefined && n > p.max)) {
        return bad(`${p.keyName} must be between ${p.min ?? '-∞'} and ${p.max ?? '∞'}`);
      }
      return n;
    }
    case 'string':
      return raw.length <= 200 ? raw : bad(`${p.keyName} must be at most 200 characters`);
  }
}

/**
 * The values of a run's token and query-string parameters, by key name. Query-string keys the definition does
 * not declare are ignored, and no query-string value can set a token parameter (`churchId` is the token's).
 * Every wrong value is reported at once, as a 400 in the spec's error shape.
 */
export function resolveParameters(def: ReportDefinition, auth: Claims, query: Record<string, unknown>, now = new Date()): Map<string, ParamValue> {
  const values = new Map<string, ParamValue>();
  const errors: ErrorItem[] = [];
  for (const p of def.parameters) {
    if (p.source === 'token') {
      values.set(p.keyName, auth[p.claim] ?? null);
      continue;
    }
    if (p.source !== 'query') continue;
    let raw = query[p.keyName];
    if (Array.isArray(raw)) raw = raw[raw.length - 1];
    const text = typeof raw === 'string' ? raw.trim() : '';
    if (text !== '') {
      values.set(p.keyName, parseValue(p, text, errors));
    } else if (p.default !== undefined) {
      values.set(p.keyName, p.type === 'date' ? dateDefault(String(p.default), now) : p.type === 'integer' ? integerDefault(p.default, now) : String(p.default));
    } else if (p.required) {
      errors.push({ msg: `${p.keyName} is required`, param: p.keyName, location: 'query' });
    } else {
      values.set(p.keyName, null);
    }
  }
  if (errors.length) throw validationFailed(errors);
  return values;
}
