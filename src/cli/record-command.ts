// `a2a-toolkit record --target <url> --port <port> --out <dir>`: a recording proxy. Point any A2A
// client at the printed URL instead of the agent; every conversation that passes through is
// written to <dir> as scenarios (each exchange the abstract operation the client called; volatile ids
// and timestamps captured, what the spec leaves to the agent as matchers; `--exact` keeps every other
// value; `--all-pairs` for every version and binding, not only the client's), which
// `a2a-toolkit test <agent-url> --cases <dir>` replays against any agent. Runs until SIGINT or SIGTERM.
import { parsePort } from "./options.js";
import type { Command } from "commander";

export interface RecordOptions {
  target: string;
  port: number;
  host: string;
  out: string;
  requirement?: string[];
  exact?: boolean;
  allPairs?: boolean;
}

export function registerRecordCommand(program: Command, setCode: (code: number) => void): void {
  program
    .command("record")
    .description("recording proxy: relays a client's conversation with an agent and writes it as compliance scenarios")
    .requiredOption("--target <url>", "the agent's base URL")
    .requiredOption("--out <dir>", "directory to write (<dir>/recorded/*.yaml; case files for what no codec reads)")
    .option("--port <port>", "port of the proxy (0 = any free port)", parsePort, 0)
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--requirement <id>", "requirement ID written into the cases (repeatable; default S-03)", (v: string, prev: string[] = []) => [
      ...prev,
      v,
    ])
    .option("--exact", "keep every recorded value (status, names, texts), for regression runs against the same agent")
    .option(
      "--all-pairs",
      "replay each conversation on every version and binding the target declares, gRPC too (default: the pair the client used)",
    )
    .action(async (opts: RecordOptions) => {
      try {
        new URL(opts.target);
      } catch {
        process.stderr.write(`a2a-toolkit record: --target is not a URL: "${opts.target}"\n`);
        setCode(2);
        return;
      }
      const { startRecorder } = await import("../compliance/record.js");
      const rec = await startRecorder({
        target: opts.target,
        port: opts.port,
        host: opts.host,
        outDir: opts.out,
        requirements: opts.requirement,
        exact: opts.exact === true,
        allPairs: opts.allPairs === true,
        onExchange: (x) => process.stderr.write(`recorded ${x.version} ${x.binding} ${x.operation} → ${x.response.status}\n`),
      });
      process.stdout.write(
        `recording proxy for ${opts.target} listening on ${rec.url}\npoint the client at ${rec.url}; cases go to ${opts.out}\n` +
          `replay: a2a-toolkit test <agent url> --cases ${opts.out} --only-cases\n`,
      );
      await new Promise<void>((done) => {
        const stop = () => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          void rec.close().then(done, done);
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
      process.stdout.write(`${rec.files().length} file(s) written to ${opts.out}\n`);
      setCode(0);
    });
}
