import type { z } from 'zod';
import { callInternal, givingInternal, type InternalClient } from '@church/common';

/**
 * Giving's part of saved lists' rules: who gave (to a fund, in a date range). Until giving answers, a list with a
 * giving condition answers 502 naming giving, never an empty list that looks like "nobody gave".
 */
export async function donorsOf(internal: InternalClient, filter: z.input<typeof givingInternal.donors.body>): Promise<string[]> {
  return (await callInternal(internal, givingInternal.donors, filter)).personIds;
}
