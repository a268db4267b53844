// Converts the hand-projected client cases of one operation folder (compliance/client-cases/<v>/<binding>/<op>/)
// into client scenarios (compliance/client-scenarios/<op>/<scenario>.yaml, src/compliance/client/scenarios.ts),
// one per scenario name, and deletes the copies it replaced. The 1.0 JSON-RPC twin is the source of the
// steps: its requests' `params` become the matchers on the 1.0 view, its answers' `result` the step's
// `wire_payload` and its errors' codes the error played; the other twins give the pairs, their titles,
// results, checks, levels, requirement IDs and citations, each scoped to the version or pair it belongs
// to. A family that is not an exchange of operations the codecs answer (streams, raw or wire-level
// answers, request checks on the wire body, its own card) is left as it is, named with the reason.
// `make test-verdict-diff` compares the verdicts of the deleted files (from git) and their projections.
//
//   npx tsx codegen/client-cases-to-scenarios.ts <op> [--write]
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { actsDocument, convertFolder, ERRORS, key, OPERATIONS, PAIRS, scoped, VERSION, type Citation } from "./cases-to-scenarios.js";

const ROOT = fileURLToPath(new URL("../compliance/", import.meta.url));
type Json = Record<string, unknown>;

/** JSON-RPC codes the client cases play, beyond the server converter's. */
const ERROR_NAMES: Record<number, string> = {
  ...ERRORS,
  [-32006]: "InvalidAgentResponseError",
  [-32007]: "ExtendedAgentCardNotConfiguredError",
  [-32008]: "ExtensionSupportRequiredError",
  [-32009]: "VersionNotSupportedError",
};
/** The wire-level matchers of a 1.0 JSON-RPC request's params that the pair's wire rule checks instead. */
const WIRE_ONLY = new Set(["$valid", "$match"]);

/** Families whose answers are wire-level on purpose: the server codecs would write them canonical. */
const WIRE_LEVEL: Record<string, string> = {
  "get/protojson-spellings-accepted": "answers in proto field names and enum numbers, which the codecs write canonical",
  "get/unknown-response-members-ignored": "answers with unknown members, which the codecs drop",
};

const pairName = (p: string) => `${VERSION[p.split("/")[0]!]}/${p.split("/")[1]}`;

function read(pair: string, op: string, name: string): Json | undefined {
  const file = join(ROOT, "client-cases", pair, op, `${name}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Json) : undefined;
}

/** The steps of the 1.0 JSON-RPC twin as ACTS client steps, or why they cannot be. */
function steps(source: Json): { steps?: Json[]; why?: string } {
  const out: Json[] = [];
  for (const x of source.exchanges as Json[]) {
    const req = x.request as Json;
    const res = x.response as Json;
    const body = req.body as Json | undefined;
    const op = body && typeof body.method === "string" ? OPERATIONS[body.method] : undefined;
    if (!op) return { why: `a request that is no 1.0 JSON-RPC operation (${JSON.stringify(body?.method)})` };
    const events = res.events as Json[] | undefined;
    if (events && !events.every((e) => e.result !== undefined && e.error === undefined))
      return { why: "a stream event that is no JSON-RPC result" };
    const answer = (events ? { result: null } : res.body) as Json | undefined;
    if (!answer || (answer.result === undefined && answer.error === undefined)) return { why: "an answer that is no JSON-RPC envelope" };
    const params = Object.fromEntries(Object.entries((body!.params as Json | undefined) ?? {}).filter(([k]) => !WIRE_ONLY.has(k)));
    if (JSON.stringify(params).includes('"$capture"') || JSON.stringify(answer).match(/\{\{(?!rpcId)/))
      return { why: "captures or templates beyond the request id" };
    const extras: Json = { ...(Object.keys(params).length ? { request: params } : {}) };
    if (answer.error !== undefined) {
      const name = ERROR_NAMES[(answer.error as Json).code as number];
      if (!name) return { why: `error code ${JSON.stringify((answer.error as Json).code)}` };
      extras.error = name;
    }
    if (events) extras.events = events.map((e) => e.result);
    if (res.end === "drop") extras.end = "drop";
    for (const k of ["optional", "level", "spec"]) if (x[k] !== undefined) extras[k] = x[k];
    out.push({
      id: x.name,
      client_response: { operation: op, wire_payload: answer.error === undefined && !events ? answer.result : null },
      expect_parsed: {},
      "x-a2a-toolkit": extras,
    });
  }
  return { steps: out };
}

/** Per version the value all its twins share, else per pair. */
function perScope(twins: [string, Json][], of: (c: Json) => unknown): Json {
  const out: Json = {};
  for (const v of ["v1_0", "v0_3"]) {
    const mine = twins.filter(([p]) => p.startsWith(v));
    if (!mine.length) continue;
    const vals = mine.map(([, c]) => JSON.stringify(of(c) ?? null));
    if (vals.every((x) => x === vals[0])) {
      if (of(mine[0]![1]) !== undefined) out[VERSION[v]!] = of(mine[0]![1]);
    } else for (const [p, c] of mine) if (of(c) !== undefined) out[pairName(p)] = of(c);
  }
  return out;
}

const stripPrefix = (title: string) => title.replace(/^(1\.0|0\.3) (JSON-RPC|HTTP\+JSON|gRPC): /, "");

export function convert(op: string, name: string): { yaml?: string; files?: string[]; why?: string } {
  if (WIRE_LEVEL[`${op}/${name}`]) return { why: WIRE_LEVEL[`${op}/${name}`] };
  let twins = PAIRS.map((p): [string, Json | undefined] => [p, read(p, op, name)]).filter((t): t is [string, Json] => !!t[1]);
  // A 0.3 gRPC error without ErrorInfo (0.3 defines none) is a server shape the codecs do not write.
  const bareGrpc = (c: Json) =>
    (c.exchanges as Json[]).some((x) => {
      const g = (x.response as Json).grpc as Json | undefined;
      return !!g && !g.errorInfo;
    });
  twins = twins.filter(([p, c]) => !(p === "v0_3/grpc" && bareGrpc(c)));
  // A twin that plays another number of stream events than the source (gRPC twins without the final
  // Task snapshot) is another scenario: it stays a case file.
  const counts = (c: Json) =>
    (c.exchanges as Json[]).map((x) => ((x.response as Json).events as unknown[] | undefined)?.length ?? -1).join(",");
  const sourceCounts = twins.find(([p]) => p === "v1_0/json-rpc")?.[1];
  if (sourceCounts) twins = twins.filter(([, c]) => counts(c) === counts(sourceCounts));
  const source = twins.find(([p]) => p === "v1_0/json-rpc")?.[1];
  if (!source) return { why: "no 1.0 JSON-RPC twin to take the 1.0 view from" };
  if (twins.length < 2) return { why: "one pair only: nothing to write once" };
  if (twins.some(([, c]) => c.card || c.interfaceUrl || c.tenant)) return { why: "a card of its own" };
  const names = (c: Json) => (c.exchanges as Json[]).map((x) => x.name).join(",");
  if (twins.some(([, c]) => names(c) !== names(source))) return { why: "twins with different exchanges" };
  if (new Set(twins.map(([, c]) => JSON.stringify(c.capabilities ?? null))).size > 1) return { why: "twins with different capabilities" };
  const s = steps(source);
  if (!s.steps) return { why: s.why };
  const levels = perScope(twins, (c) => c.level);
  if (Object.keys(levels).some((k) => k.includes("/"))) return { why: "twins of one version at different levels: decide by hand" };
  // Checks: one list, each check scoped to the versions or pairs whose twins have it.
  const checks: Json[] = [];
  for (const [p, c] of twins)
    for (const raw of (c.checks as Json[] | undefined) ?? []) {
      // A check on the request as sent stays a wire-level check of the pairs it was written for.
      const { request, ...rest } = raw;
      const k = request === undefined ? raw : { ...rest, wire: request };
      const same = checks.find((q) => JSON.stringify({ ...q, only: undefined }) === JSON.stringify({ ...k, only: undefined }));
      if (same) (same.only as string[]).push(pairName(p));
      else checks.push({ ...k, only: [pairName(p)] });
    }
  for (const k of checks) {
    const only = k.only as string[];
    const versions = ["1.0", "0.3"].filter((v) =>
      twins.filter(([p]) => pairName(p).startsWith(v)).every(([p]) => only.includes(pairName(p))),
    );
    const rest = only.filter((p) => !versions.some((v) => p.startsWith(v)));
    k.only = [...versions, ...rest];
    if (versions.length === 2 && !rest.length) delete k.only;
  }
  const titles = perScope(twins, (c) => stripPrefix(c.title as string));
  const extras: Json = {
    pairs: twins.map(([p]) => pairName(p)),
    instruction: twins.every(([, c]) => JSON.stringify(c.instruction) === JSON.stringify(source.instruction))
      ? source.instruction
      : perScope(twins, (c) => c.instruction),
    result: perScope(twins, (c) => c.result),
    ...(checks.length ? { checks } : {}),
    ...(levels["0.3"] && levels["0.3"] !== source.level ? { levels: { "0.3": levels["0.3"] } } : {}),
    ...(source.capabilities ? { capabilities: source.capabilities } : {}),
    titles,
    ...(twins.some(([, c]) => c.description) ? { descriptions: perScope(twins, (c) => c.description) } : {}),
    requirements: scoped(
      twins,
      (c) => c.requirements as string[],
      (r) => r,
    ),
    spec: scoped(twins, (c) => (c.spec as Citation[] | undefined) ?? [], key),
  };
  const doc = actsDocument(op, {
    id: name,
    name: stripPrefix(source.title as string),
    level: source.level as string,
    tags: ["client"],
    steps: s.steps,
    extras,
  });
  return { yaml: stringify(doc, { lineWidth: 0 }), files: twins.map(([p]) => join(ROOT, "client-cases", p, op, `${name}.json`)) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  convertFolder("client-cases", "client-scenarios", convert, process.argv.slice(2));
