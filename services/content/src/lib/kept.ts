/**
 * A read served from the snapshot store: answered at once (`answer`: a gate's refusal, an answer that must not be
 * kept), or a body to keep at the church's data version under `variant` (`kept`), which the route sends with
 * `snapshots.sendAt` (routes/kept.ts `sendRead`), building it with `build` only when no body is kept yet.
 */
export type KeptRead<T = unknown> =
  | { answer: T; kept?: undefined }
  | { answer?: undefined; kept: { variant: string; version: string; build: () => Promise<T> } };
