// Lint config: typescript-eslint's recommended rules over hand-written code; generated/ is the
// generator's responsibility and is checked by `make check-generated` instead.
import tseslint from "typescript-eslint";

export default tseslint.config({ ignores: ["generated/**", "node_modules/**", "spec/upstream/**"] }, ...tseslint.configs.recommended, {
  rules: {
    "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
  },
});
