// The a2a-toolkit command line. Each sub-command lives in its own module and is loaded lazily,
// so `a2a-toolkit --help` stays fast.
import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { Command, CommanderError } from "commander";
import { packagePath } from "../runtime/package-root.js";

// The package version, read next to the package so it works from the checkout and when installed.
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string };
  return pkg.version;
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name("a2a-toolkit")
    .description("Types, translation, reference server/client and compliance suite for A2A 1.0 and 0.3")
    .version(packageVersion(), "-V, --version", "print the a2a-toolkit version")
    // `test --version <v>` is the protocol version: sub-command options stay the sub-command's.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });

  let code = 0;
  (await import("./client-commands.js")).registerClientCommands(program, (c) => (code = c));
  program
    .command("generate")
    .description("regenerate generated/ from the pinned upstream spec and print what changed")
    .option("--spec-dir <dir>", "upstream spec files (default $A2A_SPEC_DIR or ../shared/spec; downloaded when it holds none)")
    .option("--update-pins", "adopt the files in --spec-dir as a new revision")
    .option("--check", "fail if generated/ is out of date")
    .option("--out <dir>", "output directory (default generated/)")
    .option("--pins <file>", "pins file (default spec/pins.json)")
    .option("--upstream <dir>", "where verified spec files are materialised (default spec/upstream/)")
    .action(async (opts: { specDir?: string; updatePins?: boolean; check?: boolean; out?: string; pins?: string; upstream?: string }) => {
      // The generator (codegen/) is a contributor's tool and is not in the package: a computed
      // specifier keeps the build from compiling it into dist/.
      const generator = packagePath("codegen", "main.ts");
      if (!existsSync(generator)) {
        process.stderr.write(
          "a2a-toolkit generate: works in a checkout of a2a-toolkit (it rewrites generated/), not in an installed package\n",
        );
        code = 2;
        return;
      }
      const { main: generate } = (await import(pathToFileURL(generator).href)) as { main(args: string[]): Promise<number> };
      const args: string[] = [];
      if (opts.specDir) args.push("--spec-dir", opts.specDir);
      // A new spec directory means a new revision: re-pin it, as `make update-spec` does.
      if (opts.updatePins || opts.specDir) args.push("--update-pins");
      if (opts.check) args.push("--check");
      for (const k of ["out", "pins", "upstream"] as const) if (opts[k]) args.push(`--${k}`, opts[k]);
      code = await generate(args);
    });

  (await import("./test-command.js")).registerTestCommand(program, (c) => (code = c));
  (await import("./serve.js")).registerServeCommand(program, (c) => (code = c));
  (await import("./test-client-command.js")).registerTestClientCommand(program, (c) => (code = c));
  (await import("./record-command.js")).registerRecordCommand(program, (c) => (code = c));
  (await import("./gateway-command.js")).registerGatewayCommand(program, (c) => (code = c));
  (await import("./proxy-command.js")).registerProxyCommand(program, (c) => (code = c));
  (await import("./migrate-command.js")).registerMigrateCommand(program, (c) => (code = c));
  (await import("./inspect-command.js")).registerInspectCommand(program, (c) => (code = c));
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (e) {
    // commander's own errors (unknown option or command, missing argument) are usage errors: 2;
    // --help and --version end with 0. A sub-command's CommanderError carries its own code.
    if (e instanceof CommanderError) return e.exitCode === 1 && e.code.startsWith("commander.") ? 2 : e.exitCode;
    // A fault of the toolkit itself: one line, not a stack trace (A2A_DEBUG=1 prints it).
    process.stderr.write(
      process.env.A2A_DEBUG
        ? `${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`
        : `a2a-toolkit: internal error: ${e instanceof Error ? e.message : String(e)} (A2A_DEBUG=1 prints the stack)\n`,
    );
    return 4;
  }
  return code;
}
