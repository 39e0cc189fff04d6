import { z } from 'zod';

// The field builders the website half's schemas share (pages and posts, the calendar, registrations).

/** Text trimmed, at most `max` characters. */
export const Text = (max = 1000) => z.string().trim().max(max);
/** Optional text: absent, null or text. */
export const OptText = (max = 1000) => Text(max).nullish();
/** A time as the API answers it (a JSON date string). */
export const Stamp = z.date();
