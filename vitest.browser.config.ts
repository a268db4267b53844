import { defineConfig } from "vitest/config";

// The HTML report in headless Chromium (`make test-browser`): Debian's chromium at /usr/bin/chromium
// (A2A_CHROMIUM overrides), driven by playwright-core.
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
