// The one abortable wait of the toolkit (agents' `sleep`, the client's retry and polling waits,
// the gateway's polling).

/**
 * Resolves after `ms`, or rejects as soon as `signal` is aborted: with `abortError(reason)` when
 * given, else with the signal's reason.
 */
export function sleep(ms: number, signal?: AbortSignal, abortError?: (reason: unknown) => unknown): Promise<void> {
  const failure = (): unknown => (abortError ? abortError(signal?.reason) : signal?.reason);
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(failure());
    const onAbort = () => {
      clearTimeout(timer);
      reject(failure());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
