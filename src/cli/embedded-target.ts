// The embedded default target of `a2a-toolkit test` (and of `make run`): this project's reference
// server with its fixture agent, gRPC on the same port (both versions), a SQLite store in a temporary directory, a signed card, push on,
// started on a free loopback port for the run and stopped after it. The CLI is the only place that
// brings the suite and the server together; src/compliance never imports src/server.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packagePath } from "../runtime/package-root.js";

export interface EmbeddedTarget {
  url: string;
  /** Cases the reference server is known to fail (compliance/known-failing/reference-server.json). */
  knownFailingFile: string;
  /** The credential the run sends (`Name: value`): the extended card needs one (1.0.1 §13.3); nothing else checks it. */
  header: string;
  close(): Promise<void>;
}

export const REFERENCE_KNOWN_FAILING = packagePath("compliance", "known-failing", "reference-server.json");

export async function startEmbeddedTarget(): Promise<EmbeddedTarget> {
  const { buildServer, createFixtureAgent } = await import("../server/index.js");
  const { SqliteTaskStore } = await import("../server/store/sqlite-store.js");
  const { generateKeyPair } = await import("jose");
  const dir = mkdtempSync(join(tmpdir(), "a2a-toolkit-run-"));
  // A key made for this run signs the 1.0 card, so the signature cases (S-61) run too.
  const { privateKey } = await generateKeyPair("ES256");
  const store = new SqliteTaskStore(join(dir, "a2a-data.db"));
  const { bearerAuth } = await import("../security/auth.js");
  // A token made for this run opens the extended card (the only operation that needs a credential).
  const token = randomBytes(18).toString("base64url");
  const app = await buildServer({
    agent: createFixtureAgent({ pushNotifications: true }),
    extendedCardAuthenticators: [bearerAuth({ tokens: { [token]: "a2a-toolkit-run" } })],
    store,
    pushConfigs: store.pushConfigs,
    cardSigning: { key: privateKey, kid: "a2a-toolkit-run", alg: "ES256" },
    // The card lists GRPC interfaces at this port: the run judges the gRPC cases too.
    grpc: true,
    // The push cases register webhooks on example.com and on the suite's own receiver (127.0.0.1).
    // Every name resolves to loopback here, so no delivery ever leaves the machine, and the
    // allow-list lets the SSRF guard accept them; a failed delivery is not retried.
    push: {
      allow: ["example.com", "127.0.0.1"],
      lookup: async () => [{ address: "127.0.0.1", family: 4 }],
      maxAttempts: 1,
      timeoutMs: 500,
    },
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    knownFailingFile: REFERENCE_KNOWN_FAILING,
    header: `Authorization: Bearer ${token}`,
    async close() {
      await app.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
