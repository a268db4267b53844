// The run's defaults, in a module of their own so that the CLI can print them in its help without
// loading the runner (and the validators and gRPC descriptors it pulls in) at start-up.

/**
 * Cases run at the same time unless --concurrency says otherwise. Most of a case's time against an
 * agent is waiting for it (turns of seconds, bounds on turns that do not end), not work: eight
 * overlap those waits without sending more than a few requests at once.
 */
export const DEFAULT_CONCURRENCY = 8;
/** --timeout: bound for each response. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** --stream-timeout: bound for reading a stream to its end. */
export const DEFAULT_STREAM_TIMEOUT_MS = 15_000;
/** --task-timeout: bound for polling a task and for 429 re-sends of one request. */
export const DEFAULT_TASK_TIMEOUT_MS = 120_000;
