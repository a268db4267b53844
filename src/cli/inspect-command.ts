// `a2a-toolkit inspect [url] [--port <p>] [--host <h>]`: the live inspector (src/inspector/), a local
// web page to talk to an agent and see the wire. Serves on loopback unless --host says otherwise,
// prints its URL, and runs until SIGINT or SIGTERM.
import type { Command } from "commander";
import { parsePort, runUntilSignal } from "./options.js";

export function registerInspectCommand(program: Command, setCode: (code: number) => void): void {
  program
    .command("inspect [url]")
    .description("a local web page to talk to any A2A agent: its cards (1.0 and 0.3), a chat on each interface, the wire")
    .option("--port <port>", "port of the page (0 = any free port)", parsePort, 0)
    .option("--host <host>", "interface to listen on (default: loopback only)", "127.0.0.1")
    .action(async (url: string | undefined, opts: { port: number; host: string }) => {
      if (url !== undefined) {
        try {
          if (!/^https?:$/.test(new URL(url).protocol)) throw new TypeError();
        } catch {
          process.stderr.write(`a2a-toolkit inspect: not an http(s) URL: "${url}"\n`);
          return setCode(2);
        }
      }
      const { startInspector } = await import("../inspector/server.js");
      await runUntilSignal(
        "inspect",
        async () => {
          const inspector = await startInspector({ port: opts.port, host: opts.host, url });
          process.stdout.write(`a2a-toolkit inspector: open ${inspector.url}\n`);
          return inspector;
        },
        setCode,
      );
    });
}
