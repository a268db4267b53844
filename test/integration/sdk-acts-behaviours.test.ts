// The ACTS behaviours (ACTS §11.2 and tck-auth-required) as the official SDK servers serve them
// around this project's executors: @a2a-js/sdk 1.3.0 (compliance-sdk-target.ts) over 1.0 JSON-RPC,
// and 0.3.14 (sdk03-acts-target.ts) over 0.3 HTTP+JSON (the binding that loses most: L11), through
// the reference client, so that the ACTS corpus can be run on agents nobody here wrote.
import { afterAll, beforeAll, describe, it } from "vitest";
import { createA2AClient, type A2AClient } from "../../src/client/index.js";
import { ACTS_BEHAVIOUR_CHECKS, ACTS_CHECKED_PREFIXES } from "../support/acts-behaviours.js";
import { startSdk03ActsTarget } from "../support/sdk03-acts-target.js";
import type { EchoTarget } from "../support/sdk-echo-target.js";
import { startSdkTarget } from "./compliance-sdk-target.js";

const targets = [
  { sdk: "1.3.0", version: "1.0", binding: "JSONRPC", start: () => startSdkTarget({ longRunningMs: 50 }) },
  { sdk: "0.3.14", version: "0.3", binding: "HTTP+JSON", start: () => startSdk03ActsTarget({ longRunningMs: 50 }) },
] as const;

describe.each(targets)("@a2a-js/sdk $sdk, A2A $version over $binding", ({ version, binding, start }) => {
  let target: EchoTarget;
  let client: A2AClient;
  beforeAll(async () => {
    target = await start();
    client = await createA2AClient(target.url, { version, bindings: [binding] });
  });
  afterAll(() => target.close());

  it.concurrent.each(ACTS_CHECKED_PREFIXES)("%s", async (prefix) => {
    await ACTS_BEHAVIOUR_CHECKS[prefix]!(client);
  });
});
