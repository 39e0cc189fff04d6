import { z } from 'zod';
import { Id } from '@church/common';

/** The request and answer shapes of `src/routes/settings.ts` (what it accepts and what leaves it). */

export const Setting = z.object({ id: z.string(), churchId: z.string(), keyName: z.string(), value: z.string().nullable(), public: z.boolean() });

export const SettingList = z.array(Setting);

/**
 * A setting as the apps' settings editors send it: a new one as `{churchId, public: 1, keyName}` (the church is the
 * token's; `id: ""` and `0`/`1` are read by the shared validation), and the value as text, a number or a boolean,
 * kept as its text (`18`, `true`).
 */
export const SettingSave = z.object({
  id: Id.optional(),
  keyName: z.string().trim().min(1, 'keyName is required').max(100),
  value: z
    .union([z.string().max(8 * 1024 * 1024), z.number(), z.boolean()])
    .nullish()
    .transform((v) => (v === null || v === undefined ? v : String(v))),
  public: z.boolean().optional(),
});
