// The client sub-commands of `a2a-toolkit`: card, send, get, cancel, list, subscribe.
// The client library is imported only when one of them runs.
//
// Exit codes (documented in README.md, "Client"):
//   0  success
//   1  the agent answered with an A2A or JSON-RPC error (protocol error)
//   2  usage error (bad arguments)
//   3  connection failure: unreachable, timed out, aborted, an HTTP error without an A2A body, or a reply that is not A2A
//   4  the agent card is unusable: not JSON, not a card, no interface this client may use (e.g. pinned version missing)
//   5  the task the command waited for ended failed or rejected
//   6  the agent refused the credentials (HTTP 401 or 403)
import { Command, CommanderError, Option } from "commander";
import { parseHeaderOptions } from "./options.js";

/** Where the card is found from (src/transport/card-urls.ts). */
const URL_HELP = "the agent's base URL (a path prefix is fine), its card URL (any path) or an interface URL";

export const EXIT = { ok: 0, protocol: 1, usage: 2, connection: 3, card: 4, taskFailed: 5, auth: 6 } as const;

interface CommonOpts {
  json?: boolean;
  version?: "1.0" | "0.3";
  binding?: "json-rpc" | "rest" | "grpc";
  /** PEM CA file trusted for gRPC over TLS. */
  ca?: string;
  timeout?: string;
  token?: string;
  apiKey?: string;
  header?: string[];
  extension?: string[];
}

type Out = { out: (s: string) => void; err: (s: string) => void };
const stdio: Out = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

function common(cmd: Command): Command {
  return cmd
    .addOption(new Option("--version <v>", "pin the protocol version (no fallback)").choices(["1.0", "0.3"]))
    .addOption(new Option("--binding <b>", "restrict the binding").choices(["json-rpc", "rest", "grpc"]))
    .option("--ca <file>", "PEM CA certificate trusted for gRPC over TLS (bare host:port interfaces then use TLS)")
    .option("--json", "machine-readable output (ProtoJSON; one JSON value per line for streams)")
    .option("--timeout <ms>", "per-request timeout in milliseconds (default 30000; 0 = none)")
    .option("--token <token>", "bearer token (Authorization: Bearer …)")
    .option("--api-key <key>", "API key, placed where the card's API-key scheme says")
    .option("--header <name:value>", "extra request header (repeatable)", collect, [])
    .option("--extension <uri>", "activate an extension (repeatable)", collect, []);
}

function collect(v: string, acc: string[]): string[] {
  return [...acc, v];
}

function usageExit(cmd: Command): Command {
  return cmd.exitOverride((e) => {
    throw e.exitCode === 0 ? e : new CommanderError(EXIT.usage, e.code, e.message);
  });
}

async function connect(url: string, o: CommonOpts) {
  const { createA2AClient } = await import("../client/index.js");
  const headers = headerMap(o);
  const timeoutMs = o.timeout !== undefined ? Number(o.timeout) : undefined;
  if (timeoutMs !== undefined && !(timeoutMs >= 0))
    throw new CommanderError(EXIT.usage, "a2a.timeout", `--timeout expects milliseconds, got ${o.timeout}`);
  const ca = o.ca ? await readCa(o.ca) : undefined;
  return createA2AClient(url, {
    version: o.version,
    bindings: bindingsOf(o),
    grpc: ca ? { ca } : undefined,
    timeoutMs,
    headers,
    extensions: o.extension,
    credentials: { bearer: o.token, apiKey: o.apiKey },
  });
}

function bindingsOf(o: CommonOpts): ("JSONRPC" | "HTTP+JSON" | "GRPC")[] | undefined {
  if (!o.binding) return undefined;
  return [o.binding === "rest" ? "HTTP+JSON" : o.binding === "grpc" ? "GRPC" : "JSONRPC"];
}

async function readCa(file: string): Promise<Buffer> {
  const { readFile } = await import("node:fs/promises");
  try {
    return await readFile(file);
  } catch (e) {
    throw new CommanderError(EXIT.usage, "a2a.ca", `--ca ${file}: ${(e as Error).message}`);
  }
}

function headerMap(o: CommonOpts): Record<string, string> {
  return parseHeaderOptions(
    o.header,
    (h) => new CommanderError(EXIT.usage, "a2a.header", `--header expects name:value, got ${JSON.stringify(h)}`),
  );
}

/** Maps any failure to a message on stderr and an exit code. */
async function report(e: unknown, io: Out): Promise<number> {
  const { A2AError, A2ACardError, A2ATransportError } = await import("../client/index.js");
  if (e instanceof CommanderError) {
    io.err(`error: ${e.message}\n`);
    return e.exitCode;
  }
  if (e instanceof A2AError) {
    const meta = Object.entries(e.metadata)
      .map(([k, v]) => `${k}=${v}`)
      .join(", ");
    io.err(`A2A error ${e.name} (${e.code}): ${e.message}${meta ? ` [${meta}]` : ""}\n`);
    return EXIT.protocol;
  }
  if (e instanceof A2ACardError) {
    io.err(`agent card problem: ${e.message}\n`);
    return EXIT.card;
  }
  if (e instanceof A2ATransportError && (e.status === 401 || e.status === 403)) {
    io.err(`not authorized: ${e.message} (use --token or --api-key)\n`);
    return EXIT.auth;
  }
  if (e instanceof A2ATransportError) {
    io.err(`connection failed (${e.kind}): ${e.message}\n`);
    return EXIT.connection;
  }
  io.err(`unexpected failure: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  return EXIT.connection;
}

export function registerClientCommands(program: Command, setCode: (code: number) => void, io: Out = stdio): void {
  const run = (fn: () => Promise<number | void>) => async () => {
    try {
      setCode((await fn()) ?? EXIT.ok);
    } catch (e) {
      setCode(await report(e, io));
    }
  };

  usageExit(
    common(
      program
        .command("card")
        .description("fetch an agent card and show it, with the interface the client would use")
        .argument("<url>", URL_HELP)
        .option("--extended", "fetch the extended (authenticated) card through the chosen interface"),
    ),
  ).action((url: string, o: CommonOpts & { extended?: boolean }) =>
    run(async () => {
      const { A2ACardError, fetchAgentCard, selectInterface } = await import("../client/index.js");
      const { formatCard, toJson } = await import("../client/format.js");
      const v1_0 = await import("../../generated/v1_0/index.js");
      let card: import("../../generated/v1_0/index.js").AgentCard;
      let chosen;
      let why: string | undefined;
      if (o.extended) {
        const client = await connect(url, o);
        card = await client.useExtendedCard();
        chosen = client.target;
      } else {
        card = (await fetchAgentCard(url, { timeoutMs: o.timeout ? Number(o.timeout) : 30_000, headers: headerMap(o) })).card;
        try {
          chosen = selectInterface(card, {
            version: o.version,
            bindings: bindingsOf(o),
          });
        } catch (e) {
          if (!(e instanceof A2ACardError)) throw e;
          why = e.message;
        }
      }
      if (o.json) io.out(`${JSON.stringify(toJson(v1_0.AgentCardSchema, card))}\n`);
      else io.out(`${formatCard(card, chosen)}\n${why ? `no usable interface: ${why}\n` : ""}`);
      return why ? EXIT.card : EXIT.ok;
    })(),
  );

  usageExit(
    common(
      program
        .command("send")
        .description("send a message (a text part, data parts, metadata); waits for the task unless --no-wait")
        .argument("<url>", URL_HELP)
        .argument("[text]", "the text part (needed unless --data is given)")
        .option("--data <json>", "add a data part holding this JSON value (repeatable)", collect, [])
        .option("--metadata <json>", "the message's metadata: a JSON object (e.g. a gateway's backend choice)")
        .option("--stream", "stream events as they arrive")
        .option("--task <id>", "continue this task (multi-turn)")
        .option("--context <id>", "send within this context")
        .option("--no-wait", "return at once (returnImmediately) with the task as it is"),
    ),
  ).action((url: string, text: string | undefined, o: SendOpts) =>
    run(async () => {
      const message = await messageOf(text, o);
      const { formatMessage, formatTask, StreamPrinter, toJson } = await import("../client/format.js");
      const v1_0 = await import("../../generated/v1_0/index.js");
      const client = await connect(url, o);
      if (o.stream) {
        const printer = new StreamPrinter(io.out);
        let last: import("../../generated/v1_0/index.js").TaskState | undefined;
        for await (const ev of client.sendStreamingMessage({ message })) {
          if (o.json) io.out(`${JSON.stringify(toJson(v1_0.StreamResponseSchema, ev))}\n`);
          else printer.event(ev);
          if (ev.payload.case === "task") last = ev.payload.value.status?.state;
          if (ev.payload.case === "statusUpdate") last = ev.payload.value.status?.state;
        }
        printer.end();
        return failedState(v1_0, last) ? EXIT.taskFailed : EXIT.ok;
      }
      const res = await client.sendMessage({ message, configuration: { returnImmediately: !o.wait } });
      if (o.json) io.out(`${JSON.stringify(toJson(v1_0.SendMessageResponseSchema, res))}\n`);
      if (res.payload.case === "message") {
        if (!o.json) io.out(`${formatMessage(res.payload.value)}\n`);
        return EXIT.ok;
      }
      if (res.payload.case !== "task") return EXIT.ok;
      if (!o.json) io.out(`${formatTask(res.payload.value)}\n`);
      return failedState(v1_0, res.payload.value.status?.state) ? EXIT.taskFailed : EXIT.ok;
    })(),
  );

  usageExit(
    common(
      program
        .command("get")
        .description("show a task")
        .argument("<url>", URL_HELP)
        .argument("<task-id>")
        .option("--history <n>", "history length"),
    ),
  ).action((url: string, id: string, o: CommonOpts & { history?: string }) =>
    run(async () => {
      const { formatMessage, formatTask, toJson } = await import("../client/format.js");
      const v1_0 = await import("../../generated/v1_0/index.js");
      const client = await connect(url, o);
      const t = await client.getTask({ id, historyLength: o.history !== undefined ? Number(o.history) : undefined });
      if (o.json) io.out(`${JSON.stringify(toJson(v1_0.TaskSchema, t))}\n`);
      else io.out(`${formatTask(t)}\n${t.history.map((m) => formatMessage(m)).join("\n")}${t.history.length ? "\n" : ""}`);
      return EXIT.ok;
    })(),
  );

  usageExit(common(program.command("cancel").description("cancel a task").argument("<url>", URL_HELP).argument("<task-id>"))).action(
    (url: string, id: string, o: CommonOpts) =>
      run(async () => {
        const { formatTask, toJson } = await import("../client/format.js");
        const v1_0 = await import("../../generated/v1_0/index.js");
        const client = await connect(url, o);
        const t = await client.cancelTask({ id });
        io.out(o.json ? `${JSON.stringify(toJson(v1_0.TaskSchema, t))}\n` : `${formatTask(t)}\n`);
        return EXIT.ok;
      })(),
  );

  usageExit(
    common(
      program
        .command("list")
        .description("list tasks (A2A 1.0 only)")
        .argument("<url>", URL_HELP)
        .option("--context <id>", "only tasks of this context")
        .option("--status <state>", "only tasks in this state (e.g. working, completed)")
        .option("--page-size <n>", "tasks per page (1-100)")
        .option("--page-token <token>", "continue from this page token"),
    ),
  ).action((url: string, o: CommonOpts & { context?: string; status?: string; pageSize?: string; pageToken?: string }) =>
    run(async () => {
      const { stateName, toJson } = await import("../client/format.js");
      const v1_0 = await import("../../generated/v1_0/index.js");
      let status: number | undefined;
      if (o.status) {
        const key = o.status
          .toUpperCase()
          .replace(/^TASK_STATE_/, "")
          .replace(/-/g, "_") as keyof typeof v1_0.TaskState;
        status = v1_0.TaskState[key];
        if (status === undefined) throw new CommanderError(EXIT.usage, "a2a.status", `unknown task state ${JSON.stringify(o.status)}`);
      }
      const client = await connect(url, o);
      const res = await client.listTasks({
        contextId: o.context,
        status,
        pageSize: o.pageSize !== undefined ? Number(o.pageSize) : undefined,
        pageToken: o.pageToken,
      });
      if (o.json) io.out(`${JSON.stringify(toJson(v1_0.ListTasksResponseSchema, res))}\n`);
      else {
        for (const t of res.tasks) io.out(`${t.id}  ${stateName(t.status?.state).padEnd(14)} context ${t.contextId}\n`);
        io.out(`${res.tasks.length} task(s)${res.nextPageToken ? `; next page: --page-token ${res.nextPageToken}` : ""}\n`);
      }
      return EXIT.ok;
    })(),
  );

  usageExit(
    common(
      program.command("subscribe").description("stream the events of an existing task").argument("<url>", URL_HELP).argument("<task-id>"),
    ),
  ).action((url: string, id: string, o: CommonOpts) =>
    run(async () => {
      const { StreamPrinter, toJson } = await import("../client/format.js");
      const { A2AError, TERMINAL_STATES } = await import("../client/index.js");
      const { create } = await import("@bufbuild/protobuf");
      const v1_0 = await import("../../generated/v1_0/index.js");
      const client = await connect(url, o);
      const printer = new StreamPrinter(io.out);
      const show = (ev: import("../../generated/v1_0/index.js").StreamResponse) => {
        if (o.json) io.out(`${JSON.stringify(toJson(v1_0.StreamResponseSchema, ev))}\n`);
        else printer.event(ev);
      };
      let last: import("../../generated/v1_0/index.js").TaskState | undefined;
      try {
        for await (const ev of client.subscribeToTask({ id })) {
          show(ev);
          if (ev.payload.case === "task") last = ev.payload.value.status?.state;
          if (ev.payload.case === "statusUpdate") last = ev.payload.value.status?.state;
        }
      } catch (e) {
        // A 1.0 agent refuses to subscribe to a finished task (§3.1.6): show the task instead.
        if (!(e instanceof A2AError && e.type === "UnsupportedOperationError" && last === undefined)) throw e;
        const t = await client.getTask({ id });
        if (!TERMINAL_STATES.has(t.status?.state ?? v1_0.TaskState.UNSPECIFIED)) throw e;
        show(create(v1_0.StreamResponseSchema, { payload: { case: "task", value: t } }));
        last = t.status?.state;
      }
      printer.end();
      return failedState(v1_0, last) ? EXIT.taskFailed : EXIT.ok;
    })(),
  );
}

type SendOpts = CommonOpts & { stream?: boolean; task?: string; context?: string; wait: boolean; data: string[]; metadata?: string };

/** `send`'s message: the text part, then a data part per --data, and --metadata; bad JSON is a usage error. */
async function messageOf(
  text: string | undefined,
  o: SendOpts,
): Promise<import("@bufbuild/protobuf").MessageInitShape<typeof import("../../generated/v1_0/index.js").MessageSchema>> {
  const { textMessage } = await import("../client/index.js");
  const { fromJson } = await import("@bufbuild/protobuf");
  const { ValueSchema } = await import("@bufbuild/protobuf/wkt");
  const json = (flag: string, v: string): unknown => {
    try {
      return JSON.parse(v);
    } catch (e) {
      throw new CommanderError(EXIT.usage, "a2a.json", `--${flag} expects JSON: ${(e as Error).message}`);
    }
  };
  if (text === undefined && !o.data.length) throw new CommanderError(EXIT.usage, "a2a.text", "send needs a text or at least one --data");
  const metadata = o.metadata === undefined ? undefined : json("metadata", o.metadata);
  if (metadata !== undefined && (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)))
    throw new CommanderError(EXIT.usage, "a2a.metadata", `--metadata expects a JSON object, got ${o.metadata}`);
  const message = textMessage(text ?? "", { taskId: o.task, contextId: o.context });
  const data = o.data.map((d) => ({ content: { case: "data" as const, value: fromJson(ValueSchema, json("data", d) as never) } }));
  message.parts = [...(text === undefined ? [] : (message.parts ?? [])), ...data];
  if (metadata) message.metadata = metadata as Record<string, never>;
  return message;
}

function failedState(v1_0: typeof import("../../generated/v1_0/index.js"), s: number | undefined): boolean {
  return s === v1_0.TaskState.FAILED || s === v1_0.TaskState.REJECTED;
}
