// The built-in fixture agent (`a2a-toolkit serve --agent fixture`): deterministic behaviours
// selected by the first text part of the message, plus the messageId-prefix scenarios of the
// official conformance kit (a2a-wire reference tck-1.0.md), which take precedence.
//
//   echo <text>   artifact with <text>; completes (any other text: echo of the whole text)
//   ask           input-required with a question; the follow-up in the same task completes it with
//                 an artifact holding the follow-up's text
//   stream <n>    n chunks of one artifact ("chunk 1/n" …) with append/lastChunk; completes
//   fail          fails with a status message
//   slow <ms>     works <ms> milliseconds, then completes; cancelable at any time
// A request is small, so what it makes the server do is capped (FIXTURE_LIMITS): n ≤ 20,000 chunks
// (about 3.5 MB on the heap, within the runtime's 4 MiB of artifacts per task), ms ≤ 60,000. `echo`
// returns at most the request's own text and `parts` a fixed answer of about 200 bytes.
//   msg <text>    a bare agent Message with <text>; no task
//   auth          auth-required; the follow-up completes it
//   parts         an artifact with a text, a file-by-url, a file-by-bytes and a data part
// A message part whose mediaType the card's defaultInputModes do not cover is refused with
// ContentTypeNotSupportedError (1.0 §3.1.1), before any behaviour runs.
import type { Agent, AgentContext, AgentResult, StreamItem } from "./agent.js";
import { authRequired, error, inputRequired, message, reply, sleep, stream } from "./agent.js";
import { firstText, unacceptedPart } from "./parts.js";
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2AError } from "../versioning/errors.js";

export const FIXTURE_LIMITS = { maxChunks: 20_000, maxSlowMs: 60_000 };

/**
 * Marks the card as this fixture's, listing its behaviours, so the compliance suite
 * (src/compliance/discovery.ts) knows which fixture-dependent cases it can run.
 */
export const FIXTURE_EXTENSION = {
  uri: "urn:a2a-toolkit:fixture-agent:v1",
  description: "The a2a-toolkit fixture agent: deterministic behaviours chosen by the first word of the message",
  params: { behaviours: ["echo", "ask", "stream", "fail", "slow", "msg", "auth", "parts", "tck"] },
};

export const ASK_QUESTION = "What should I echo back?";
export const AUTH_PROMPT = "Authorization required: send a follow-up message in this task to continue.";
export const FAIL_TEXT = "The fixture agent failed as requested.";

function count(arg: string, fallback: number, max: number): number {
  const n = Number.parseInt(arg, 10);
  return Number.isFinite(n) && n >= 0 ? Math.min(n, max) : fallback;
}

/** The kit's scenarios, longest prefix first. */
const TCK: [string, (ctx: AgentContext) => AgentResult][] = [
  [
    "tck-stream-artifact-chunked",
    () =>
      stream([
        { artifact: { artifactId: "chunked", parts: "chunk-1 " }, append: true, lastChunk: false },
        { artifact: { artifactId: "chunked", parts: "chunk-2" }, append: true, lastChunk: true },
      ]),
  ],
  ["tck-stream-artifact-text", () => stream(["Streamed text content"])],
  ["tck-stream-artifact-file", () => stream([{ raw: "Streamed file content", filename: "output.txt", mediaType: "text/plain" }])],
  ["tck-stream-ordering-001", () => stream(["Ordered output"])],
  ["tck-stream-001", () => stream(["Stream hello from TCK"])],
  ["tck-stream-002", () => stream([])],
  ["tck-stream-003", () => stream(["Stream task lifecycle"])],
  ["tck-artifact-file-url", () => reply({ url: "https://example.com/output.txt", filename: "output.txt", mediaType: "text/plain" })],
  ["tck-artifact-file", () => reply({ raw: "Generated file content", filename: "output.txt", mediaType: "text/plain" })],
  ["tck-artifact-text", () => reply("Generated text content")],
  ["tck-artifact-data", () => reply({ data: { key: "value", count: 42 } })],
  ["tck-complete-task", () => reply([], { statusMessage: "Hello from TCK" })],
  ["tck-message-response", () => message("Direct message response")],
  ["tck-input-required", () => inputRequired("Please provide more input.")],
  ["tck-reject-task", () => error("rejected", { reject: true })],
  ["test-resubscribe-message-id", (ctx) => stream(sleepThen(4_000, ctx.signal, []))],
];

async function* sleepThen(ms: number, signal: AbortSignal, items: StreamItem[]): AsyncGenerator<StreamItem> {
  await sleep(ms, signal);
  yield* items;
}

async function* chunks(n: number): AsyncGenerator<StreamItem> {
  for (let i = 1; i <= n; i++) yield `chunk ${i}/${n}`;
}

/** The media types the fixture reads: its card's defaultInputModes. */
export const FIXTURE_INPUT_MODES = ["text/plain"];

function unsupportedPart(msg: v1_0.Message): A2AError | undefined {
  const part = unacceptedPart(msg, FIXTURE_INPUT_MODES);
  if (!part) return undefined;
  return new A2AError(
    "ContentTypeNotSupportedError",
    `This agent reads ${FIXTURE_INPUT_MODES.join(", ")}; a message part has media type ${part.mediaType}`,
  );
}

export interface FixtureOptions {
  /** Declare `capabilities.pushNotifications` (default false: the push operations answer PushNotificationNotSupported). */
  pushNotifications?: boolean;
}

export function createFixtureAgent(opts: FixtureOptions = {}): Agent {
  const pushNotifications = opts.pushNotifications ?? false;
  return {
    card: {
      name: "a2a-toolkit fixture agent",
      description:
        "Deterministic test agent: the first word of the message selects the behaviour (echo, ask, stream, fail, slow, msg, auth, parts).",
      version: "1.0.0",
      capabilities: { streaming: true, pushNotifications, extensions: [FIXTURE_EXTENSION] },
      defaultInputModes: FIXTURE_INPUT_MODES,
      defaultOutputModes: ["text/plain", "application/json", "application/octet-stream"],
      skills: [
        {
          id: "fixture",
          name: "Fixture behaviours",
          description: "echo <text>, ask, stream <n>, fail, slow <ms>, msg <text>, auth, parts",
          tags: ["test", "fixture"],
          examples: ["echo hello", "stream 5", "slow 1000"],
        },
      ],
    },
    extendedCard: {
      name: "a2a-toolkit fixture agent",
      description: "The fixture agent's extended card: the same behaviours, with one more skill listed.",
      version: "1.0.0",
      capabilities: { streaming: true, pushNotifications, extensions: [FIXTURE_EXTENSION] },
      defaultInputModes: FIXTURE_INPUT_MODES,
      defaultOutputModes: ["text/plain", "application/json", "application/octet-stream"],
      skills: [
        {
          id: "fixture",
          name: "Fixture behaviours",
          description: "echo <text>, ask, stream <n>, fail, slow <ms>, msg <text>, auth, parts",
          tags: ["test", "fixture"],
        },
        { id: "extended", name: "Extended", description: "Only listed on the extended card", tags: ["extended"] },
      ],
    },
    handleMessage(msg: v1_0.Message, ctx: AgentContext): AgentResult {
      const refused = unsupportedPart(msg);
      if (refused) throw refused;
      const text = firstText(msg);
      const state = ctx.task?.status?.state;
      // A follow-up to an interrupted task (ask, auth, tck-input-required) completes it.
      if (state === v1_0.TaskState.INPUT_REQUIRED || state === v1_0.TaskState.AUTH_REQUIRED) return reply(text);

      for (const [prefix, behave] of TCK) if (msg.messageId.startsWith(prefix)) return behave(ctx);

      const trimmed = text.trim();
      const space = trimmed.search(/\s/);
      const word = (space < 0 ? trimmed : trimmed.slice(0, space)).toLowerCase();
      const rest = space < 0 ? "" : trimmed.slice(space + 1).trim();
      switch (word) {
        case "echo":
          return reply(rest);
        case "ask":
          return inputRequired(ASK_QUESTION);
        case "stream":
          return stream(chunks(count(rest, 3, FIXTURE_LIMITS.maxChunks)));
        case "fail":
          return error(FAIL_TEXT);
        case "slow": {
          const ms = count(rest, 1_000, FIXTURE_LIMITS.maxSlowMs);
          return stream(sleepThen(ms, ctx.signal, [`done after ${ms} ms`]));
        }
        case "msg":
          return message(rest);
        case "auth":
          return authRequired(AUTH_PROMPT);
        case "parts":
          return reply([
            "Here are four kinds of part.",
            { url: "https://example.com/fixture.txt", filename: "fixture.txt", mediaType: "text/plain" },
            { raw: "fixture bytes", filename: "fixture.bin", mediaType: "application/octet-stream" },
            { data: { fixture: true, n: 4, list: ["a", "b"] }, mediaType: "application/json" },
          ]);
        default:
          return reply(text);
      }
    },
  };
}
