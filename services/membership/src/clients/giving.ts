import { z } from 'zod';
import { callInternal, type InternalClient } from '@church/common';

/**
 * Giving's part of saved lists' rules: who gave (to a fund, in a date range). Giving serves it (signed,
 * `POST /giving/internal/people/donors` `{churchId, fundId?, startDate?, endDate?}` → `{personIds}`); the contract
 * belongs in `packages/common/src/contracts.ts` (asked of the lead). Until giving answers, a list with a giving
 * condition answers 502 naming giving, never an empty list that looks like "nobody gave".
 */
export const donorsContract = {
  module: 'giving' as const,
  path: '/giving/internal/people/donors',
  body: z.object({ churchId: z.uuid(), fundId: z.string().max(100).optional(), startDate: z.string().optional(), endDate: z.string().optional() }),
  answer: z.object({ personIds: z.array(z.uuid()).max(100_000) }),
};

export async function donorsOf(internal: InternalClient, filter: z.input<typeof donorsContract.body>): Promise<string[]> {
  return (await callInternal(internal, donorsContract, filter)).personIds;
}
