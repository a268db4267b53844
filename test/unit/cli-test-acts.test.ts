import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { registerTestCommand, resolveActsArgs, type TestCommandOptions } from "../../src/cli/test-command.js";

/** Parses a `test` command line with the real option definitions; returns what the run would get. */
async function parse(args: string[]): Promise<{ url: string | undefined; opts: TestCommandOptions }> {
  const program = new Command().exitOverride();
  registerTestCommand(program, () => {});
  let got: { url: string | undefined; opts: TestCommandOptions } | undefined;
  program.commands
    .find((c) => c.name() === "test")!
    .action((url: string | undefined, opts: TestCommandOptions) => {
      got = resolveActsArgs(url, opts);
    });
  await program.parseAsync(["node", "a2a-toolkit", "test", ...args]);
  return got!;
}

describe("test --acts on the command line", () => {
  it("never swallows a URL that follows --acts: it is the agent's URL and the corpus runs", async () => {
    const { url, opts } = await parse(["--acts", "http://127.0.0.1:9999/agent"]);
    expect(url).toBe("http://127.0.0.1:9999/agent");
    expect(opts.acts).toBe(true);
  });

  it("takes a path after --acts, with the URL before or after it", async () => {
    expect(await parse(["--acts", "my-tests/", "https://agent.example"])).toMatchObject({
      url: "https://agent.example",
      opts: { acts: "my-tests/" },
    });
    expect(await parse(["https://agent.example", "--acts", "x.acts.yaml"])).toMatchObject({
      url: "https://agent.example",
      opts: { acts: "x.acts.yaml" },
    });
    expect(await parse(["--acts"])).toMatchObject({ url: undefined, opts: { acts: true } });
  });

  it("--acts-as-published and --only-acts imply --acts; two URLs are a usage error", async () => {
    expect((await parse(["--acts-as-published"])).opts.acts).toBe(true);
    expect((await parse(["--only-acts", "http://a.example"])).opts).toMatchObject({ acts: true, onlyActs: true });
    await expect(parse(["http://a.example", "--acts", "http://b.example"])).rejects.toThrow(/already "http:\/\/a.example"/);
    expect((await parse(["http://a.example"])).opts.acts).toBeUndefined();
  });
});
