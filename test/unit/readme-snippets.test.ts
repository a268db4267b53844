// The README's TypeScript snippets compile: test/readme-snippets/ holds each as a module that
// `make typecheck` compiles; this test fails when the README and those files differ, so a snippet
// changed in the README is type-checked as it reads now.
import { describe, expect, it } from "vitest";
import { committedFiles, snippetFiles } from "../readme-snippets/extract.js";

describe("README snippets", () => {
  it("every ```ts block is a module under test/readme-snippets/, as the README has it (npx tsx test/readme-snippets/extract.ts)", () => {
    const fromReadme = snippetFiles();
    expect(fromReadme.size).toBeGreaterThanOrEqual(6);
    expect(Object.fromEntries(committedFiles())).toEqual(Object.fromEntries(fromReadme));
  });
});
