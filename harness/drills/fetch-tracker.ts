/**
 * Count `fetch` calls in flight (the effect providers' HTTP calls), so virtual time waits for them
 * like it waits for DynamoDB requests. Installed for one drill, then restored.
 */

/** Wrap `globalThis.fetch`; `busy()` is true while a call is in flight; `restore()` undoes it. */
export function trackFetch(): { busy(): boolean; restore(): void } {
  const original = globalThis.fetch;
  let inFlight = 0;
  globalThis.fetch = (async (...args: Parameters<typeof fetch>) => {
    inFlight++;
    try {
      return await original(...args);
    } finally {
      inFlight--;
    }
  }) as typeof fetch;
  return {
    busy: () => inFlight > 0,
    restore: () => {
      globalThis.fetch = original;
    },
  };
}
