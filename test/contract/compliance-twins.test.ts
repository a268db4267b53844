// Twin compliance cases must describe the same conversation: a 1.0 JSON-RPC case and its 0.3
// twin send the same operations, with requests that mean the same through the versioning layer,
// and expect the same JSON-RPC error codes; a 1.0 gRPC case and its 0.3 twin call the same methods
// of the two services and expect an error at the same steps. (Twins existing at all is checked in
// test/unit/compliance-cases.test.ts.)
import { toJson } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { exchangesOf, loadCases, type Case, type CaseExchange, type CaseExpect } from "../../src/compliance/cases.js";
import { codecFor, OPERATIONS, resolveJsonRpcMethod, type Operation } from "../../src/versioning/codec.js";
import { zip } from "../support/zip.js";

const cases = loadCases();
const byId = new Map(cases.map((c) => [c.id, c]));

/** Template placeholders ({{taskId}}, {{uuid:t}}) become one fixed string, the same in both twins. */
function fill(value: unknown): unknown {
  if (typeof value === "string") return value.replace(/\{\{[^}]*\}\}/g, "X");
  if (Array.isArray(value)) return value.map(fill);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
  return value;
}

interface Call {
  operation: Operation;
  params: unknown;
  /** The error codes the step accepts: one, or the named alternatives of a `$variants`. */
  errorCodes: number[];
}

function codesOf(expected: unknown): number[] {
  if (typeof expected === "number") return [expected];
  const variants = (expected as { $variants?: Record<string, unknown> } | undefined)?.$variants;
  return variants ? Object.values(variants).filter((v): v is number => typeof v === "number") : [];
}

/** The JSON-RPC error codes an expectation accepts, in any of its named forms (a scenario step's orErrors). */
function errorCodesOf(e: CaseExpect): number[] {
  if (e.forms) return Object.values(e.forms).flatMap(errorCodesOf);
  return codesOf((e.body as { error?: { code?: unknown } } | undefined)?.error?.code);
}

function calls(c: Case): Call[] | undefined {
  const out: Call[] = [];
  for (const x of c.steps.flatMap(exchangesOf)) {
    const body = x.request.body as { method?: unknown; params?: unknown } | undefined;
    if (typeof body?.method !== "string") return undefined; // raw bodies, broken envelopes: not comparable
    const ref = resolveJsonRpcMethod(body.method);
    if (!ref) return undefined;
    out.push({ operation: ref.operation, params: fill(body.params ?? {}), errorCodes: errorCodesOf(x.expect) });
  }
  return out;
}

/** The 1.0 request a call means, without ids the two case authors may have chosen differently. */
function meaning(version: "1.0" | "0.3", call: Call): unknown {
  try {
    const req = codecFor(version, "JSONRPC").decodeRequest(call.operation, call.params).value;
    const json = toJson(OPERATIONS[call.operation].request, req as never) as Record<string, unknown>;
    const msg = json.message as Record<string, unknown> | undefined;
    if (msg) delete msg.messageId;
    return json;
  } catch {
    return "invalid"; // a deliberately invalid request: both twins must send one
  }
}

const pairs = cases
  .filter((c) => c.version === "1.0" && c.binding === "json-rpc")
  .map((c) => [c, byId.get(c.id.replace(/^v1_0\//, "v0_3/"))] as const)
  .filter((p): p is readonly [Case, Case] => p[1] !== undefined);

/**
 * Twins whose error expectations differ on purpose, because the two texts differ: 0.3 states the rule
 * without a code (or allows a result), 1.0 maps it to one.
 */
const ERROR_CODES_DIFFER: Record<string, string> = {
  "json-rpc/cancel-task/ended-task-is-not-cancelable":
    "0.3.0 §7.4 lets the server answer with the task ('success is not guaranteed'); 1.0 refuses with TaskNotCancelableError",
  "json-rpc/send-message/message-to-ended-task-is-refused":
    "0.3.0 §7.1 says only that sending to an ended task 'will result in an error'; 1.0 maps it to UnsupportedOperationError",
  "json-rpc/send-message/message-to-canceled-task-is-refused":
    "0.3.0 §7.1 says only that sending to an ended task 'will result in an error'; 1.0 maps it to UnsupportedOperationError",
  "json-rpc/streaming/subscribe-to-ended-task":
    "0.3.0 §7.9 leaves a resubscription to the server (a MAY case that accepts a stream); 1.0 §3.1.6 refuses with UnsupportedOperationError",
};

describe("compliance twins stay consistent through the versioning layer", () => {
  it("there are twins to compare, most of them step by step", () => {
    expect(pairs.length).toBeGreaterThan(30);
    const comparable = pairs.filter(([a, b]) => calls(a) && calls(b) && calls(a)!.length === calls(b)!.length);
    expect(comparable.length).toBeGreaterThan(pairs.length / 2);
  });

  it("every listed difference names a pair that exists", () => {
    const names = new Set(pairs.map(([a]) => a.id.replace(/^v1_0\//, "")));
    for (const name of Object.keys(ERROR_CODES_DIFFER)) expect(names.has(name), name).toBe(true);
  });

  it.each(pairs.map(([a, b]) => [a.id.replace(/^v1_0\//, ""), a, b] as const))("%s", (name, c10, c03) => {
    const a = calls(c10);
    const b = calls(c03);
    if (!a || !b || a.length !== b.length) return; // different step shapes: compared by hand, not here
    expect(b.map((x) => x.operation)).toEqual(a.map((x) => x.operation));
    zip(a, b).forEach(([x10, x03], i) => expect(meaning("0.3", x03), `step ${i + 1}`).toEqual(meaning("1.0", x10)));
    if (ERROR_CODES_DIFFER[name]) return;
    // Where 0.3 allows more codes than 1.0 (an optional method may answer -32601), it must still
    // accept every code the 1.0 twin expects.
    expect(b.map((x) => x.errorCodes.length > 0)).toEqual(a.map((x) => x.errorCodes.length > 0));
    zip(a, b).forEach(([x10, x03], i) => expect(x03.errorCodes, `step ${i + 1}`).toEqual(expect.arrayContaining(x10.errorCodes)));
  });
});

/** The 0.3 service's method names that differ from 1.0's (a2a-wire.md §1.4). */
const GRPC_0_3_TO_1_0: Record<string, string> = {
  TaskSubscription: "SubscribeToTask",
  ListTaskPushNotificationConfig: "ListTaskPushNotificationConfigs",
  GetAgentCard: "GetExtendedAgentCard",
};

/** A gRPC case's calls: the 1.0 method name and whether the step expects an error status. */
function grpcCalls(c: Case): { rpc: string; error: boolean }[] {
  return c.steps
    .flatMap<CaseExchange>(exchangesOf)
    .filter((x) => !x.name?.endsWith("(status code)")) // 0.3's extra SHOULD step on the exact code
    .map((x) => {
      const statuses = [x.expect, ...Object.values(x.expect.forms ?? {})].map((e) => (e.grpc as { status?: unknown } | undefined)?.status);
      const error = statuses.some((status) => status !== undefined && status !== "OK");
      return { rpc: GRPC_0_3_TO_1_0[x.request.rpc!] ?? x.request.rpc!, error };
    });
}

const grpcPairs = cases
  .filter((c) => c.version === "1.0" && c.binding === "grpc")
  .map((c) => [c, byId.get(c.id.replace(/^v1_0\//, "v0_3/"))] as const)
  .filter((p): p is readonly [Case, Case] => p[1] !== undefined);

describe("gRPC twins call the same methods of the two services", () => {
  it("there are gRPC twins, most of them step by step", () => {
    expect(grpcPairs.length).toBeGreaterThan(25);
    const comparable = grpcPairs.filter(([a, b]) => grpcCalls(a).length === grpcCalls(b).length);
    expect(comparable.length).toBeGreaterThan(grpcPairs.length / 2);
  });

  it.each(grpcPairs.map(([a, b]) => [a.id.replace(/^v1_0\//, ""), a, b] as const))("%s", (name, c10, c03) => {
    const a = grpcCalls(c10);
    const b = grpcCalls(c03);
    if (a.length !== b.length) return; // different step shapes (0.3 checks a variant 1.0 does not): compared by hand
    expect(b.map((x) => x.rpc)).toEqual(a.map((x) => x.rpc));
    if (ERROR_CODES_DIFFER[name.replace(/^grpc\//, "json-rpc/")]) return;
    expect(b.map((x) => x.error)).toEqual(a.map((x) => x.error));
  });
});
