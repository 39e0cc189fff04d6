import type { FastifyRequest } from 'fastify';
import { z } from 'zod';

/** Entity ids are UUIDs (spec convention 3); a malformed one is a 400, not a database error. */
export const Id = z.uuid({ version: undefined, message: 'must be a UUID' });
/** `:id` path parameter. */
export const IdParams = z.object({ id: Id });

/** `:churchId` of a public route. */
export const ChurchParams = z.object({ churchId: Id });
/** Emails are trimmed and compared lower-cased. */
export const Email = z.string().trim().toLowerCase().pipe(z.email({ message: 'must be an email address' }));
/** Money: a decimal number of currency units, kept as numeric(12,2) in the database. */
export const Money = z.coerce.number().finite().multipleOf(0.01);
/**
 * ISO 8601 date or date-time in JSON; a `Date` in code. Years 1000 to 9000: JavaScript takes dates 270,000
 * years either side, and week and day arithmetic near those ends (or beyond year 9999, which PostgreSQL reads
 * from ISO text no more) would otherwise fail in the database instead of here.
 */
export const IsoDate = z.coerce
  .date({ message: 'must be an ISO 8601 date' })
  .min(new Date('1000-01-01T00:00:00Z'), { message: 'must be a date from 1000-01-01 to 9000-12-31' })
  .max(new Date('9000-12-31T23:59:59.999Z'), { message: 'must be a date from 1000-01-01 to 9000-12-31' });
/**
 * A calendar day `YYYY-MM-DD` from 1900 to 2999 (a campaign's start, a plan's service date); a timestamp is cut to
 * the day it names as written (no time-zone shift). An impossible day (`2026-02-30`) is a 400.
 */
export const CalendarDay = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}(?:[T ].*)?$/, 'must be a date YYYY-MM-DD')
  .transform((s) => s.slice(0, 10))
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s && s >= '1900-01-01' && s <= '2999-12-31';
  }, 'must be a real date from 1900 to 2999');
/** Optional text that clients send as `null` or `''` to clear. */
export const OptionalText = z.string().trim().nullish();
/** A comma-separated list of ids in a query string (`?ids=a,b,c`). */
export const IdList = z
  .string()
  .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
  .pipe(z.array(Id).max(1000));
/** The same UUIDs `Id` accepts. */
const UUID = z.regexes.uuid();
/**
 * A JSON array of up to `max` ids, checked in one pass: the same ids `z.array(Id)` accepts, each bad one reported
 * as `Id` reports it (`must be a UUID`, `param` naming its place), for bodies that carry many ids (doing's autofill:
 * about 1,200). zod's per-element parse makes a result object per id and a copy of every list; this check does
 * neither (bench/results/design-measurements.md).
 */
export const IdArray = (max: number) =>
  z
    .custom<string[]>()
    .check((ctx) => {
      const ids = ctx.value as unknown;
      if (!Array.isArray(ids)) {
        ctx.issues.push({ code: 'invalid_type', expected: 'array', input: ids, message: 'must be a list of UUIDs' });
        return;
      }
      if (ids.length > max) ctx.issues.push({ code: 'too_big', origin: 'array', maximum: max, inclusive: true, input: ids, message: `must have at most ${max} items` });
      for (let i = 0; i < ids.length; i++) {
        const id: unknown = ids[i];
        if (typeof id !== 'string' || !UUID.test(id)) ctx.issues.push({ code: 'custom', path: [i], input: id, message: 'must be a UUID' });
      }
    })
    .meta({ type: 'array', items: { type: 'string', format: 'uuid', pattern: UUID.source }, maxItems: max });

/** An empty object: what some spec routes answer. */
export const Empty = z.object({});

/** A batch-save body: one object or an array of them (NOTES.md: a single object answers an array). */
export function batchOf<T extends z.ZodType>(item: T) {
  return z.union([z.array(item).max(5000), item]).transform((v) => (Array.isArray(v) ? v : [v]) as Array<z.output<T>>);
}

/**
 * The `param` of a field of batch item `i`, as the validator writes it: `[2].serviceId` when the body was an
 * array, `serviceId` when it was a single object (`batchOf` routes accept both).
 */
export function itemParam(req: FastifyRequest, i: number, field: string): string {
  return req.rawBody?.trimStart().startsWith('[') ? `[${i}].${field}` : field;
}
