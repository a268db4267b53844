import { defineConfig } from "vitest/config";

// The default project runs every test but the long property-test project (`make test-properties`)
// and the headless-browser tests (`make test-browser`).
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/properties/**", "test/browser/**", "node_modules/**"],
    environment: "node",
    // vitest's default is (cores - 1) workers: one on these 2-core machines. Most files wait on
    // sockets and child processes, so two workers keep both cores busy (make test: 6m42s -> 3m16s).
    maxWorkers: 2,
    // Compiles the CLI once for the files that spawn it (test/support/cli-build.ts).
    globalSetup: ["test/support/cli-build.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
