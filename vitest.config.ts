import { defineConfig } from "vitest/config";

// The default project runs every test but the long property-test project (`make test-properties`)
// and the headless-browser tests (`make test-browser`).
export default defineConfig({
  test: {
    // test/**/*.test.ts, in the two projects below.
    exclude: ["test/properties/**", "test/browser/**", "node_modules/**"],
    environment: "node",
    // vitest's default is (cores - 1) workers: one on these 2-core machines. Most files wait on
    // sockets and child processes, so two workers keep both cores busy (make test: 6m42s -> 3m16s).
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        // Unit and contract files share their workers' module graph (isolate: false): evaluating
        // generated/, the codecs and fastify afresh for each of ~80 files was most of their time
        // (all of them, back to back: 254 s -> 96 s; import 226 s -> 51 s). They start no
        // processes and leave no state behind that another file reads.
        extends: true,
        test: { name: "unit", include: ["test/unit/**/*.test.ts", "test/contract/**/*.test.ts"], isolate: false },
      },
      {
        // Integration files keep a fresh module graph each (servers, stores, env, fake timers).
        extends: true,
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          // Compiles the CLI once for the files that spawn it (test/support/cli-build.ts).
          globalSetup: ["test/support/cli-build.ts"],
        },
      },
    ],
  },
});
