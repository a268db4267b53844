import { defineConfig } from "vitest/config";

// The default project runs every test but the long property-test project (`make test-properties`).
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/properties/**", "node_modules/**"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
