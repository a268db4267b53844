// `a2a-toolkit proxy --target <url> --port <port> [--variant <name>]... [--fault <name>]...`: the
// rewriting proxy (src/compliance/proxy.ts). Point a client or `a2a-toolkit test` at the printed
// URL to see how it copes with another agent's allowed choices (variants) or mistakes (faults).
// `--list` prints every rewrite with its one-line description. Runs until SIGINT or SIGTERM.
import type { Command } from "commander";
import { parsePort, runUntilSignal } from "./options.js";

export interface ProxyCommandOptions {
  target?: string;
  port: number;
  host: string;
  variant?: string[];
  fault?: string[];
  grpcTarget?: string;
  list?: boolean;
}

const repeat = (v: string, prev: string[] = []) => [...prev, v];

export function registerProxyCommand(program: Command, setCode: (code: number) => void): void {
  program
    .command("proxy")
    .description("rewriting proxy: relays an agent's answers with named variants (choices the spec allows) or faults")
    .option("--target <url>", "the agent's base URL")
    .option("--port <port>", "port of the proxy (0 = any free port)", parsePort, 0)
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--variant <name>", "apply a variant (repeatable)", repeat)
    .option("--fault <name>", "apply a fault (repeatable; grpc-* faults need --grpc-target)", repeat)
    .option(
      "--grpc-target <host:port>",
      "the agent's gRPC server: an h2c proxy stands in front of it and the card's GRPC interfaces point there",
    )
    .option("--list", "print the variants and faults with one line each, and exit")
    .action(async (opts: ProxyCommandOptions) => {
      const { REWRITES, selectRewrites } = await import("../compliance/rewrites.js");
      const { GRPC_REWRITES } = await import("../compliance/grpc-rewrites.js");
      if (opts.list) {
        for (const kind of ["variant", "fault"] as const) {
          const rows = REWRITES.filter((r) => r.kind === kind);
          process.stdout.write(`${kind}s:\n`);
          if (!rows.length) process.stdout.write("  (none yet)\n");
          const width = Math.max(0, ...rows.map((r) => r.name.length));
          for (const r of rows) process.stdout.write(`  ${r.name.padEnd(width)}  ${r.description}\n`);
        }
        const width = Math.max(...GRPC_REWRITES.map((r) => r.name.length));
        process.stdout.write("gRPC faults (with --grpc-target):\n");
        for (const r of GRPC_REWRITES) process.stdout.write(`  ${r.name.padEnd(width)}  ${r.description}\n`);
        return setCode(0);
      }
      const usage = (s: string) => {
        process.stderr.write(`a2a-toolkit proxy: ${s}\n`);
        setCode(2);
      };
      if (!opts.target) return usage("--target <url> is required (or --list)");
      try {
        if (!/^https?:$/.test(new URL(opts.target).protocol)) return usage(`--target is not an http(s) URL: "${opts.target}"`);
        const grpcFaults = (opts.fault ?? []).filter((f) => GRPC_REWRITES.some((r) => r.name === f));
        if (grpcFaults.length && !opts.grpcTarget) return usage(`${grpcFaults.join(", ")}: gRPC faults need --grpc-target <host:port>`);
        selectRewrites(
          opts.variant,
          opts.fault?.filter((f) => !grpcFaults.includes(f)),
        );
      } catch (e) {
        return usage(e instanceof TypeError ? `--target is not a URL: "${opts.target}"` : (e as Error).message);
      }
      const { startProxy } = await import("../compliance/proxy.js");
      await runUntilSignal(
        "proxy",
        async () => {
          const proxy = await startProxy({
            target: opts.target!,
            port: opts.port,
            host: opts.host,
            variants: opts.variant,
            faults: opts.fault,
            ...(opts.grpcTarget ? { grpcTarget: opts.grpcTarget } : {}),
            onNote: (n) => process.stderr.write(`a2a-toolkit proxy: ${n}\n`),
          });
          const names = proxy.rewrites.map((r) => `${r.kind} ${r.name}`).join(", ") || "no rewrites";
          process.stdout.write(`rewriting proxy for ${opts.target} listening on ${proxy.url} (${names})\n`);
          if (proxy.grpcAddress) process.stdout.write(`gRPC proxy for ${opts.grpcTarget} listening on ${proxy.grpcAddress}\n`);
          return proxy;
        },
        setCode,
      );
    });
}
