/**
 * The module's clock. Expiry rules (authGuids, OAuth codes, device codes) read time from here and pass it to
 * SQL as a parameter, never `now()`, so tests can move time with `jest.spyOn(clock, 'now')` instead of sleeping.
 */
export const clock = {
  now: (): Date => new Date(),
};

/** `clock.now()` plus some seconds. */
export function secondsFromNow(seconds: number): Date {
  return new Date(clock.now().getTime() + seconds * 1000);
}
