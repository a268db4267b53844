// Converts the hand-projected client cases of one operation folder (compliance/client-cases/<v>/<binding>/<op>/)
// into client scenarios (compliance/client-scenarios/<op>/<scenario>.yaml, src/compliance/client/scenarios.ts),
// one per family, and deletes the copies it replaced. A family is a scenario name with its variants: the
// other server shapes of the same scenario (`-message-body`, the a2a-python 0.3 bodies; `-1_0_0-mapping`)
// and the 0.3 form of a 1.0 card rule (VARIANT_OF), each a case of its own name inside the one file.
//
// The steps are those of the family's scenario file if it has one, else those of its 1.0 JSON-RPC twin:
// its requests' `params` become the matchers on the 1.0 view, its answers' `result` the step's
// `wire_payload`, its errors' codes the error played. Each twin then adds its pair: where the codecs
// write its answer as the file has it, the answer is projected; where they cannot (proto spellings,
// unknown members, another server's error shape, a 0.3 gRPC error without ErrorInfo), the step carries
// the file's answer as raw wire data for that pair (`x-a2a-toolkit.wire`). Titles, results, checks,
// levels, cards, requirement IDs and citations are scoped to the version or pair they belong to.
// Before writing, every pair of the family is projected from the new file and compared with the case it
// replaces (parsed by parseClientCase): everything but the request of a projected step (matched on its
// 1.0 view instead of the wire) must be equal. `make test-verdict-diff` then compares the verdicts of the
// deleted files (from git) and their projections.
//
//   npx tsx test/verdict-diff/client-cases-to-scenarios.ts <op> [--write]
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { parse, stringify } from "yaml";
import { parseClientCase, type ClientCase } from "../../src/compliance/client/cases.js";
import { projectClientScenario, readClientScenario, type ClientScenario } from "../../src/compliance/client/scenarios.js";
import { actsDocument, ERRORS, key, OPERATIONS, PAIRS, scoped, VERSION, type Citation } from "../../codegen/cases-to-scenarios.js";

const ROOT = fileURLToPath(new URL("../../compliance/", import.meta.url));
const X = "x-a2a-toolkit";
type Json = Record<string, unknown>;
type Pair = Parameters<typeof projectClientScenario>[1];

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
/** Request headers the pair's wire rule writes; any other header a case matches is the step's `headers`. */
const WIRE_HEADERS = new Set(["a2a-version"]);
/** Case names that are another shape of a scenario whose name they do not extend. */
const VARIANT_OF: Record<string, string> = {
  // 0.3 selects an interface by preferredTransport and additionalInterfaces (0.3 §5.6.3), 1.0 by the order
  // of supportedInterfaces (1.0.1 §8.3.2): one rule, the card of each version.
  "card/json-rpc-url-from-additional-interfaces": "first-supported-interface",
  "card/rest-url-from-additional-interfaces": "first-supported-interface",
};
const familyOf = (op: string, name: string) => VARIANT_OF[`${op}/${name}`] ?? name.replace(/-(message-body|1_0_0-mapping)$/, "");

const pairName = (p: string) => `${VERSION[p.split("/")[0]!]}/${p.split("/")[1]}` as Pair;
const stripPrefix = (title: string) => title.replace(/^(1\.0|0\.3) (JSON-RPC|HTTP\+JSON|gRPC): /, "");

/** One case of the family: its name, pair (`v1_0/rest`), the case as a file holds it, and whether it is a file. */
interface Member {
  name: string;
  pair: string;
  json: Json;
  file?: string;
}

function read(file: string): Json {
  return JSON.parse(readFileSync(file, "utf8")) as Json;
}

/** The capture a request's JSON-RPC id is taken under, renamed to the wire rule's `rpcId` in its answer. */
function normalised(x: Json): Json {
  const id = ((x.request as Json).body as Json | undefined)?.id as Json | undefined;
  const name = typeof id?.$capture === "string" ? id.$capture : undefined;
  if (!name || name === "rpcId") return x;
  return JSON.parse(JSON.stringify(x).replaceAll(`{{${name}}}`, "{{rpcId}}")) as Json;
}

/** An answer with the content type the fixture server sends when the answer names none (fixture-server.ts). */
function served(r: Json): Json {
  if (r.grpc !== undefined || (r.body === undefined && r.events === undefined)) return r;
  const type = r.events !== undefined ? "text/event-stream" : "application/json";
  return { ...r, headers: { "content-type": type, ...(r.headers as Json | undefined) } };
}

/** The steps of a 1.0 JSON-RPC twin as ACTS client steps, or why they cannot be. */
function steps(source: Json): { steps?: Json[]; why?: string } {
  const out: Json[] = [];
  for (const raw of source.exchanges as Json[]) {
    const x = normalised(raw);
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
    // A request with no params at all is matched as `$optional` params: its view is the empty request.
    let params = (body!.params as Json | undefined) ?? {};
    if (Object.keys(params).length === 1 && params.$optional) params = params.$optional as Json;
    params = Object.fromEntries(Object.entries(params).filter(([k]) => !WIRE_ONLY.has(k)));
    if (JSON.stringify(params).includes('"$capture"')) return { why: "captures in the request's params" };
    const extras: Json = { ...(Object.keys(params).length ? { request: params } : {}) };
    const headers = Object.fromEntries(Object.entries((req.headers as Json | undefined) ?? {}).filter(([k]) => !WIRE_HEADERS.has(k)));
    if (Object.keys(headers).length) extras.headers = headers;
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
      [X]: extras,
    });
  }
  return { steps: out };
}

/** Per version the value all its members share, else per pair. */
function perScope(members: Member[], of: (c: Json) => unknown): Json {
  const out: Json = {};
  for (const v of ["v1_0", "v0_3"]) {
    const mine = members.filter((m) => m.pair.startsWith(v));
    if (!mine.length) continue;
    const vals = mine.map((m) => JSON.stringify(of(m.json) ?? null));
    if (vals.every((x) => x === vals[0])) {
      if (of(mine[0]!.json) !== undefined) out[VERSION[v]!] = of(mine[0]!.json);
    } else for (const m of mine) if (of(m.json) !== undefined) out[pairName(m.pair)] = of(m.json);
  }
  return out;
}

/** A value per version or pair, or once when every member has the same. */
function onceOrScoped(members: Member[], of: (c: Json) => unknown): unknown {
  const vals = members.map((m) => JSON.stringify(of(m.json) ?? null));
  if (vals.every((v) => v === vals[0])) return of(members[0]!.json);
  return perScope(members, of);
}

/** One list of checks, each scoped to the versions or pairs whose members have it. */
function mergeChecks(members: Member[]): Json[] {
  const checks: Json[] = [];
  for (const m of members)
    for (const raw of (m.json.checks as Json[] | undefined) ?? []) {
      // A check on the request as sent (a case file's) stays a wire-level check of the pairs it was written for.
      const { request, ...rest } = raw;
      const view = (request as Json | undefined)?.view as Json | undefined;
      const k = request === undefined ? raw : view ? { ...rest, request: view.params } : { ...rest, wire: request };
      const same = checks.find((q) => JSON.stringify({ ...q, only: undefined }) === JSON.stringify({ ...k, only: undefined }));
      if (same) (same.only as string[]).push(pairName(m.pair));
      else checks.push({ ...k, only: [pairName(m.pair)] });
    }
  for (const k of checks) {
    const only = k.only as string[];
    const versions = ["1.0", "0.3"].filter((v) => {
      const mine = members.filter((m) => pairName(m.pair).startsWith(v));
      return mine.length && mine.every((m) => only.includes(pairName(m.pair)));
    });
    const rest = only.filter((p) => !versions.some((v) => p.startsWith(v)));
    k.only = [...new Set([...versions, ...rest])];
    if (members.every((m) => only.includes(pairName(m.pair)))) delete k.only;
  }
  return checks;
}

/** The extras a set of members share: pairs, instruction, results, checks, levels, card, titles, requirements, citations. */
function extrasOf(members: Member[], level: string): Json {
  const levels = Object.fromEntries(Object.entries(perScope(members, (c) => c.level)).filter(([, l]) => l !== level.toUpperCase()));
  const checks = mergeChecks(members);
  const out: Json = {
    pairs: [...new Set(members.map((m) => pairName(m.pair)))],
    instruction: onceOrScoped(members, (c) => c.instruction),
    result: perScope(members, (c) => c.result),
    ...(checks.length ? { checks } : {}),
    ...(Object.keys(levels).length ? { levels } : {}),
    titles: perScope(members, (c) => stripPrefix(c.title as string)),
    ...(members.some((m) => m.json.description) ? { descriptions: perScope(members, (c) => c.description) } : {}),
    requirements: scoped(
      members.map((m) => [m.pair, m.json]),
      (c) => c.requirements as string[],
      (r) => r,
    ),
    spec: scoped(
      members.map((m) => [m.pair, m.json]),
      (c) => (c.spec as Citation[] | undefined) ?? [],
      key,
    ),
  };
  for (const k of ["card", "capabilities", "tenant", "interfaceUrl"])
    if (members.some((m) => m.json[k] !== undefined)) out[k] = onceOrScoped(members, (c) => c[k]);
  return out;
}

/** A case as its file would hold it: what a projection of an existing scenario says, in the file's members. */
function asJson(c: ClientCase): Json {
  const { id: _id, file: _file, ...rest } = c;
  return JSON.parse(JSON.stringify(rest)) as Json;
}

/** A scenario read from a YAML text (through a scratch directory, as the loader reads files). */
function load(op: string, name: string, yaml: string): { scenario?: ClientScenario; problems: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "client-scenario-"));
  try {
    mkdirSync(join(dir, op));
    writeFileSync(join(dir, op, `${name}.yaml`), yaml);
    return readClientScenario(dir, join(dir, op, `${name}.yaml`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What differs between a case and its projection, but for the requests the projection matches on the 1.0 view. */
export function differences(old: ClientCase, now: ClientCase): string[] {
  const out: string[] = [];
  const sortBy = (xs: unknown[] | undefined) => (xs ?? []).map((x) => JSON.stringify(x)).sort();
  for (const k of new Set([...Object.keys(old), ...Object.keys(now)] as (keyof ClientCase)[])) {
    if (k === "file" || k === "exchanges" || (k as string) === "$schema") continue;
    const [a, b] = k === "spec" || k === "checks" || k === "requirements" ? [sortBy(old[k]), sortBy(now[k])] : [old[k], now[k]];
    if (!isDeepStrictEqual(a, b)) out.push(`${k}: ${JSON.stringify(old[k])?.slice(0, 200)} → ${JSON.stringify(now[k])?.slice(0, 200)}`);
  }
  if (old.exchanges.length !== now.exchanges.length) out.push(`exchanges: ${old.exchanges.length} → ${now.exchanges.length}`);
  old.exchanges.forEach((x, i) => {
    const y = now.exchanges[i];
    if (!y) return;
    const o = normalised(x as unknown as Json) as unknown as typeof x;
    if (!isDeepStrictEqual(served(o.response), served(y.response)))
      out.push(`exchanges/${i}/response: ${JSON.stringify(o.response).slice(0, 300)} → ${JSON.stringify(y.response).slice(0, 300)}`);
    for (const k of ["name", "spec", "level", "optional"] as const)
      if (!isDeepStrictEqual(o[k], y[k]))
        out.push(`exchanges/${i}/${k}: ${JSON.stringify(o[k])?.slice(0, 300)} → ${JSON.stringify(y[k])?.slice(0, 300)}`);
    if (!y.request.view && !isDeepStrictEqual(o.request, y.request)) out.push(`exchanges/${i}/request differs`);
  });
  return out;
}

/** The family of `base` in `op` as one scenario: its YAML, the files it replaces, or why not. */
export function convertFamily(op: string, base: string, names: string[]): { yaml?: string; files?: string[]; why?: string } {
  const existing = join(ROOT, "client-scenarios", op, `${base}.yaml`);
  const files: Member[] = PAIRS.flatMap((p) =>
    names.flatMap((name) => {
      const file = join(ROOT, "client-cases", p, op, `${name}.json`);
      return existsSync(file) ? [{ name, pair: p, json: read(file), file }] : [];
    }),
  );
  let doc: Json;
  const members: Member[] = [...files];
  if (existsSync(existing)) {
    const loaded = readClientScenario(join(ROOT, "client-scenarios"), existing);
    if (!loaded.scenario) return { why: loaded.problems.join("; ") };
    const s = loaded.scenario;
    if (s.test[X].variants) return { why: "a scenario with variants already: extend it by hand" };
    for (const p of s.test[X].pairs)
      members.push({ name: base, pair: p.replace(/^1\.0/, "v1_0").replace(/^0\.3/, "v0_3"), json: asJson(projectClientScenario(s, p)) });
    doc = parse(readFileSync(existing, "utf8")) as Json;
  } else {
    const source = files.find((m) => m.name === base && m.pair === "v1_0/json-rpc");
    if (!source) return { why: "no 1.0 JSON-RPC twin to take the 1.0 view from" };
    const s = steps(source.json);
    if (!s.steps) return { why: s.why };
    doc = actsDocument(op, {
      id: base,
      name: stripPrefix(source.json.title as string),
      level: source.json.level as string,
      tags: ["client"],
      steps: s.steps,
      extras: {},
    });
  }
  const t = ((doc.suites as Json[])[0]!.tests as Json[])[0]!;
  const stepsOf = t.steps as Json[];
  const stepIds = stepsOf.map((s) => s.id as string);
  for (const m of files) {
    const ids = (m.json.exchanges as Json[]).map((x) => x.name);
    if (!isDeepStrictEqual(ids, stepIds))
      return { why: `${m.pair}/${m.name}: exchanges ${JSON.stringify(ids)}, the scenario's steps ${JSON.stringify(stepIds)}` };
  }
  // Extras first (a projection reads them), then the raw wire of each file where the projection differs.
  // An existing scenario that gains no pair keeps its extras as they are.
  const baseExtras = files.some((m) => m.name === base)
    ? extrasOf(
        members.filter((m) => m.name === base),
        t.level as string,
      )
    : (t[X] as Json);
  const variants: Json = {};
  for (const name of names.filter((n) => n !== base)) {
    const mine = members.filter((m) => m.name === name);
    if (!mine.length) continue;
    const own = extrasOf(mine, t.level as string);
    for (const [k, v] of Object.entries(own)) if (k !== "pairs" && isDeepStrictEqual(v, baseExtras[k])) delete own[k];
    // A variant's field that the base has and the variant lacks would be inherited: say it is empty.
    const none: Json = { checks: [], descriptions: {}, levels: {} };
    for (const k of ["checks", "descriptions", "levels", "card", "capabilities", "tenant", "interfaceUrl"])
      if (own[k] === undefined && baseExtras[k] !== undefined) {
        if (none[k] === undefined) return { why: `variant ${name} lacks the base's ${k}` };
        own[k] = none[k];
      }
    variants[name] = own;
  }
  t[X] = { ...baseExtras, ...(Object.keys(variants).length ? { variants } : {}) };
  const project = (m: Member) => {
    const loaded = load(op, base, stringify(doc, { lineWidth: 0 }));
    if (!loaded.scenario) throw new Error(loaded.problems.join("; "));
    return projectClientScenario(loaded.scenario, pairName(m.pair), m.name === base ? undefined : m.name);
  };
  const extraHeaders = (x: Json) =>
    Object.fromEntries(Object.entries(((x.request as Json).headers as Json | undefined) ?? {}).filter(([k]) => !WIRE_HEADERS.has(k)));
  // Headers the files match beyond the wire rule (Accept on a stream, credentials) are the step's, per scope.
  stepsOf.forEach((st, i) => {
    const sx = (st[X] ??= {}) as Json;
    if (!files.length || sx.headers !== undefined) return;
    const all: Member[] = members.map((m) => ({
      ...m,
      json: { h: m.file ? extraHeaders((m.json.exchanges as Json[])[i]!) : {} },
    }));
    const headers = onceOrScoped(all, (c) => c.h) as Json;
    if (Object.values(headers).some((h) => Object.keys(h as Json).length)) sx.headers = headers;
  });
  for (const m of files) {
    const scope = pairName(m.pair);
    stepsOf.forEach((st, i) => {
      const want = normalised((m.json.exchanges as Json[])[i]!);
      let now: ClientCase["exchanges"][number] | undefined;
      try {
        now = project(m).exchanges[i];
      } catch {
        now = undefined;
      }
      const raw: Json = {};
      const wanted = served(want.response as Json);
      const projected = now && served(now.response);
      const { headers: h1, ...rest1 } = projected ?? {};
      const { headers: h2, ...rest2 } = wanted;
      // An answer the codecs write but with other headers keeps its projection, with the headers over it.
      if (
        projected &&
        isDeepStrictEqual(rest1, rest2) &&
        !isDeepStrictEqual(h1, h2) &&
        Object.keys(h1 as Json).every((k) => k in (h2 as Json))
      )
        raw.responseHeaders = Object.fromEntries(Object.entries(h2 as Json).filter(([k, v]) => !isDeepStrictEqual((h1 as Json)[k], v)));
      else if (!projected || !isDeepStrictEqual(projected, wanted)) raw.response = want.response;
      const headers = (now?.request.headers ?? {}) as Json;
      const expected = Object.fromEntries(Object.entries(headers).filter(([k]) => !WIRE_HEADERS.has(k)));
      if (!isDeepStrictEqual(extraHeaders(want), expected)) raw.request = want.request;
      if (!Object.keys(raw).length) return;
      const holder = m.name === base ? ((st[X] ??= {}) as Json) : (((variants[m.name] as Json).wire ??= {}) as Json);
      const key = m.name === base ? "wire" : (st.id as string);
      ((holder[key] ??= {}) as Json)[scope] = raw;
    });
  }
  /** What differs between each of `ms` and its projection from the file as it stands. */
  const differ = (ms: Member[]): string[] => {
    const loaded = load(op, base, stringify(doc, { lineWidth: 0 }));
    if (!loaded.scenario) return loaded.problems;
    return ms.flatMap((m) => {
      const id = `${m.pair}/${op}/${m.name}`;
      const now = projectClientScenario(loaded.scenario!, pairName(m.pair), m.name === base ? undefined : m.name);
      const old = m.file ? parseClientCase(id, m.file, m.json).case : ({ id, file: "", ...m.json } as unknown as ClientCase);
      return old ? differences(old, now).map((d) => `${id}: ${d}`) : [`${id} does not parse`];
    });
  };
  // A variant says only what differs from the base: a field its cases project the same without is left out.
  for (const [name, own] of Object.entries(variants) as [string, Json][])
    for (const k of Object.keys(own).filter((k) => k !== "pairs" && k !== "wire")) {
      const v = own[k];
      delete own[k];
      if (differ(members.filter((m) => m.name === name)).length) own[k] = v;
    }
  // Verify: every member projects from the new file as it was.
  const problems = differ(members);
  if (problems.length) return { why: `projections differ:\n    ${problems.join("\n    ")}` };
  return { yaml: stringify(doc, { lineWidth: 0 }), files: files.map((m) => m.file!) };
}

function convertOp(op: string, write: boolean): void {
  const families = new Map<string, Set<string>>();
  for (const p of PAIRS) {
    const dir = join(ROOT, "client-cases", p, op);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      const name = f.replace(/\.json$/, "");
      const base = familyOf(op, name);
      (families.get(base) ?? families.set(base, new Set([base])).get(base)!).add(name);
    }
  }
  for (const [base, names] of [...families].sort()) {
    const r = convertFamily(op, base, [...names]);
    if (!r.yaml) {
      console.log(`kept   ${op}/${base}: ${r.why}`);
      continue;
    }
    console.log(`${write ? "wrote" : "would write"} ${op}/${base}.yaml (replaces ${r.files!.length} files: ${[...names].join(", ")})`);
    if (!write) continue;
    const out = join(ROOT, "client-scenarios", op, `${base}.yaml`);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, r.yaml);
    for (const f of r.files!) rmSync(f);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [op, flag] = process.argv.slice(2);
  if (!op) throw new Error("usage: client-cases-to-scenarios.ts <op> [--write]");
  convertOp(op, flag === "--write");
}
