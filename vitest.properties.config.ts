import { defineConfig } from "vitest/config";

// The long property-based translation run (`make test-properties`): every round-trip family of
// test/properties/families.ts with a fixed seed and at least 10,000 runs (A2A_PROPERTY_RUNS overrides).
export default defineConfig({
  test: {
    include: ["test/properties/**/*.test.ts"],
    environment: "node",
    testTimeout: 1_800_000,
    hookTimeout: 60_000,
  },
});
