// Client compliance cases: one JSON file per scenario under compliance/client-cases/, its path
// (without .json) is its ID (`v1_0/json-rpc/send/blocking-send-returns-task`). Each file is
// validated against compliance/client-cases/client-case.schema.json, its matchers are checked
// like the server cases' (known operators, generated validators), and its requirement IDs must
// be in compliance/requirements.json.
//
// A case says what the client's driver is told to do (`instruction`), which requests the client
// must then send, in order (`exchanges[].request`, matchers), what the fixture server answers to
// each (`exchanges[].response`, wire data recorded for the case's version and binding), and the
// result the driver must report (`result`, a matcher).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import type { Citation } from "../citations.js";
import { COMPLIANCE_DIR, readCaseFiles, type Case, type Level, type Version } from "../cases.js";
import { MATCH_KINDS, OPERATORS, isPlainObject } from "../match.js";
import { loadCatalogue } from "../requirements.js";
import { resolveValidator } from "../validators.js";
import { CLIENT_SCENARIOS_DIR, clientScenarioCases, loadClientScenarios } from "./scenarios.js";

export const CLIENT_CASES_DIR = join(COMPLIANCE_DIR, "client-cases");
const SCHEMA_FILE = join(CLIENT_CASES_DIR, "client-case.schema.json");

export interface ClientExchange {
  name?: string;
  /** Citations and level of a check in this exchange that rests on another sentence than the case. */
  spec?: Citation[];
  level?: Level;
  optional?: boolean;
  request: { method?: unknown; path?: unknown; headers?: Record<string, unknown>; body?: unknown; view?: RequestView };
  /** gRPC cases: `body` and `events` are ProtoJSON messages (sent as binary protobuf), `grpc` an error status. */
  response: {
    status?: number;
    headers?: Record<string, string>;
    body?: unknown;
    events?: unknown[];
    end?: "close" | "drop";
    grpc?: { status: string; message?: string; errorInfo?: { reason: string; domain?: string; metadata?: Record<string, string> } };
  };
}

/**
 * Client scenarios (scenarios.ts): matchers on the request decoded to its 1.0 view (the ProtoJSON of
 * the operation's 1.0 request message) by the server side of the codecs, the operation included.
 */
export interface RequestView {
  operation: string;
  version: Version;
  binding: "json-rpc" | "rest" | "grpc";
  params: unknown;
}

/** A further check at its own level: one exchange's request, or the driver's result. */
export interface ClientCheck {
  name: string;
  level: Level;
  spec: Citation[];
  exchange?: string;
  request?: ClientExchange["request"];
  result?: unknown;
}

/** A client case: the head of a server case (id, file, title, requirements, level, spec, version) and its scenario. */
export interface ClientCase extends Pick<Case, "id" | "file" | "title" | "description" | "requirements" | "level" | "spec" | "version"> {
  binding: "json-rpc" | "rest" | "grpc";
  card?: Record<string, unknown>;
  capabilities?: Record<string, unknown>;
  tenant?: string;
  interfaceUrl?: string;
  instruction: Record<string, unknown> & { op: string };
  exchanges: ClientExchange[];
  result: unknown;
  checks?: ClientCheck[];
}

export class ClientCaseLoadError extends Error {
  constructor(readonly problems: string[]) {
    super(`${problems.length} problem(s) in client compliance cases:\n  ${problems.join("\n  ")}`);
    this.name = "ClientCaseLoadError";
  }
}

let validator: ValidateFunction | undefined;
function schema(): ValidateFunction {
  validator ??= new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(SCHEMA_FILE, "utf8")) as object);
  return validator;
}

function checkMatchers(value: unknown, at: string, problems: string[]): void {
  if (Array.isArray(value)) return value.forEach((v, i) => checkMatchers(v, `${at}/${i}`, problems));
  if (!isPlainObject(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith("$")) {
      if (!(OPERATORS as readonly string[]).includes(k)) problems.push(`${at}: unknown operator "${k}"`);
      if (k === "$match" && !(MATCH_KINDS as readonly string[]).includes(v as string))
        problems.push(`${at}/$match: unknown kind ${JSON.stringify(v)}`);
      if (k === "$valid" && (typeof v !== "string" || !resolveValidator(v)))
        problems.push(`${at}/$valid: no generated validator named ${JSON.stringify(v)}`);
    }
    checkMatchers(v, `${at}/${k}`, problems);
  }
}

const VERSION_DIR: Record<Version, string> = { "1.0": "v1_0", "0.3": "v0_3" };

export function parseClientCase(
  id: string,
  file: string,
  data: unknown,
  knownIds?: Set<string>,
): { case?: ClientCase; problems: string[] } {
  const validate = schema();
  if (!validate(data))
    return {
      problems: (validate.errors ?? []).map(
        (e) =>
          `${id}: ${e.instancePath || "/"}: ${e.message ?? e.keyword}${e.params && "additionalProperty" in e.params ? ` "${String(e.params.additionalProperty)}"` : ""}`,
      ),
    };
  const raw = data as Omit<ClientCase, "id" | "file">;
  const problems: string[] = [];
  raw.exchanges.forEach((x, i) => checkMatchers(x.request, `/exchanges/${i}/request`, problems));
  checkMatchers(raw.result, "/result", problems);
  raw.checks?.forEach((k, i) => {
    checkMatchers(k.request, `/checks/${i}/request`, problems);
    checkMatchers(k.result, `/checks/${i}/result`, problems);
    if (k.exchange !== undefined && !raw.exchanges.some((x) => x.name === k.exchange))
      problems.push(`/checks/${i}/exchange: no exchange named "${k.exchange}"`);
  });
  const [vdir, bdir] = id.split("/");
  if (vdir !== VERSION_DIR[raw.version]) problems.push(`/version: "${raw.version}" but the case lives under ${vdir}/`);
  if (bdir !== raw.binding) problems.push(`/binding: "${raw.binding}" but the case lives under ${vdir}/${bdir}/`);
  if (knownIds)
    for (const r of raw.requirements)
      if (!knownIds.has(r)) problems.push(`/requirements: unknown requirement ID "${r}" (not in compliance/requirements.json)`);
  if (problems.length) return { problems: problems.map((p) => `${id}: ${p}`) };
  return { problems: [], case: { id, file, ...raw } };
}

/**
 * Loads and validates every client case below `dir`, and (for the built-in cases, or `scenariosDir`)
 * the client scenarios' projections (scenarios.ts); throws ClientCaseLoadError listing every problem,
 * among them a scenario that is also written as a case file.
 */
export function loadClientCases(
  dir: string = CLIENT_CASES_DIR,
  catalogueFile?: string,
  scenariosDir: string | undefined = dir === CLIENT_CASES_DIR ? CLIENT_SCENARIOS_DIR : undefined,
): ClientCase[] {
  const catalogue = loadCatalogue(catalogueFile);
  const known = new Set([...catalogue.rules.map((r) => r.id), ...catalogue.tckIds]);
  const problems: string[] = [];
  const cases: ClientCase[] = [];
  for (const entry of readCaseFiles(dir)) {
    if ("problem" in entry) {
      problems.push(entry.problem);
      continue;
    }
    const r = parseClientCase(entry.id, entry.file, entry.data, known);
    problems.push(...r.problems);
    if (r.case) cases.push(r.case);
  }
  if (scenariosDir !== undefined && existsSync(scenariosDir)) {
    const loaded = loadClientScenarios(scenariosDir);
    problems.push(...loaded.problems);
    const files = new Set(cases.map((c) => c.id));
    for (const c of clientScenarioCases(loaded.scenarios)) {
      if (files.has(c.id)) problems.push(`${c.id}: written both ways: a case file and the client scenario ${c.file}`);
      for (const r of c.requirements)
        if (!known.has(r)) problems.push(`${c.id}: unknown requirement ID "${r}" (not in compliance/requirements.json)`);
      c.exchanges.forEach((x, i) => checkMatchers(x.request, `${c.id}: /exchanges/${i}/request`, problems));
      checkMatchers(c.result, `${c.id}: /result`, problems);
      cases.push(c);
    }
    cases.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
  if (problems.length) throw new ClientCaseLoadError(problems);
  return cases;
}
