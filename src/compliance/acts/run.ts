// An ACTS run: the files (the pinned corpus by default, or the given files and directories,
// master files' `include` followed), each server test on every binding the card declares, at 1.0
// and at 0.3 (through the translation layer; execute.ts skips what 0.3 cannot express).
//
//   loadActsTests(paths?)             → {tests, deviations, files}
//   runActs(discovery, opts)          → ActsRun: per binding the §13 test results
//   ACTS_CORPUS_DIR                   the materialised corpus (spec/upstream/acts/, `make spec`)
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { AgentCardSchema } from "../../../generated/v1_0/a2a_pb.js";
import { packagePath } from "../../runtime/package-root.js";
import { encode } from "../../runtime/protojson.js";
import { parseAgentCard } from "../../versioning/card.js";
import { LOSS_REGISTER } from "../../versioning/loss.js";
import type { Discovery } from "../discovery.js";
import { loadActsFile, type ActsDeviation } from "./load.js";
import { adjudicationLine, passesBoth, type Adjudication, type PlannedTest } from "./adjudicate.js";
import { ACTS_BINDINGS, runActsTest, type ActsBinding, type ActsContext, type ActsTestResult, type ActsTestSpec } from "./execute.js";

export const ACTS_CORPUS_DIR = packagePath("spec", "upstream", "acts");
/** The corpus tests 0.3 cannot express, each with its loss register row or version policy. */
export const NOT_EXPRESSIBLE_0_3_FILE = packagePath("compliance", "acts", "not-expressible-0.3.json");

interface NotExpressible {
  test: string;
  loss?: string;
  policy?: string;
  bindings?: ActsBinding[];
  why: string;
}

let notExpressible: NotExpressible[] | undefined;

/** Why a test is skipped on a 0.3 interface by name (not-expressible-0.3.json), or undefined. */
export function notExpressibleOn03(testId: string, binding: ActsBinding): string | undefined {
  notExpressible ??= (JSON.parse(readFileSync(NOT_EXPRESSIBLE_0_3_FILE, "utf8")) as { tests: NotExpressible[] }).tests;
  const e = notExpressible.find((x) => x.test === testId && (!x.bindings || x.bindings.includes(binding)));
  if (!e) return undefined;
  const row = e.loss ? `loss register ${e.loss} (${LOSS_REGISTER[e.loss]?.summary ?? "unknown row"})` : `version policy "${e.policy}"`;
  return `0.3 cannot express it: ${row}: ${e.why}`;
}

export interface ActsTests {
  tests: ActsTestSpec[];
  deviations: ActsDeviation[];
  files: string[];
  /** The documents' spec_version (the first one's; "1.0" when none says). */
  specVersion: string;
  actsVersion: string;
}

function filesOf(path: string): string[] {
  if (!existsSync(path))
    throw new Error(
      `--acts: ${path} does not exist${path.startsWith(ACTS_CORPUS_DIR) ? " (run `make spec` to materialise the pinned ACTS corpus)" : ""}`,
    );
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => /\.acts\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f) => join(path, f));
}

/** Loads ACTS files (validated, §12.1); a master file's includes are loaded once each. */
export function loadActsTests(paths: string[] = [ACTS_CORPUS_DIR]): ActsTests {
  const out: ActsTests = { tests: [], deviations: [], files: [], specVersion: "", actsVersion: "" };
  const seen = new Set<string>();
  const load = (file: string) => {
    const abs = resolve(file);
    if (seen.has(abs)) return;
    seen.add(abs);
    const doc = loadActsFile(abs);
    out.files.push(abs);
    out.deviations.push(...doc.deviations);
    const data = doc.data as {
      spec_version: string;
      acts_version: string;
      variables?: Record<string, string>;
      include?: string[];
      suites?: { id: string; name: string; tests: Record<string, unknown>[] }[];
    };
    out.specVersion ||= data.spec_version;
    out.actsVersion ||= data.acts_version;
    for (const suite of data.suites ?? [])
      for (const test of suite.tests)
        out.tests.push({
          file: abs,
          suite: { id: suite.id, name: suite.name },
          test,
          variables: data.variables ?? {},
          hash: doc.testHashes[String(test.id)] ?? "",
        });
    for (const inc of data.include ?? []) load(join(dirname(abs), inc));
  };
  for (const p of paths) for (const f of filesOf(p)) load(f);
  const ids = new Map<string, string>();
  for (const t of out.tests) {
    const id = String(t.test.id);
    if (ids.has(id)) throw new Error(`ACTS test id ${id} is defined twice (${ids.get(id)} and ${t.file}); ids must be unique (§14)`);
    ids.set(id, t.file);
  }
  out.specVersion ||= "1.0";
  out.actsVersion ||= "1.0";
  return out;
}

export interface AdjudicatedResult {
  record: Adjudication;
  published: ActsTestResult;
  adjudicated: ActsTestResult;
  /** Both verdicts and the sentence, for the reports. */
  line: string;
  /** The agent passes the test as published too: the record is not needed here. */
  stale: boolean;
}

export interface ActsBindingRun {
  version: ActsVersion;
  binding: ActsBinding;
  url: string;
  /** The verdicts that count: adjudicated tests corrected (unless run as published). */
  results: ActsTestResult[];
  adjudicated: AdjudicatedResult[];
  durationMs: number;
}

export interface ActsRunOptions {
  headers?: Record<string, string>;
  timeoutMs?: number;
  streamTimeoutMs?: number;
  bindings?: ActsBinding[];
  /** The versions run (default both: every interface the card declares). */
  versions?: ActsVersion[];
  /** Test ids to run (default: all). */
  only?: (id: string) => boolean;
  onResult?: (run: { version: ActsVersion; binding: ActsBinding; url: string }, result: ActsTestResult) => void;
  /** Counts the messages the tests send, on every interface. */
  sent?: { messages: number };
}

const CASE_BINDING: Record<string, ActsBinding> = { "json-rpc": "jsonrpc", rest: "rest", grpc: "grpc" };

export type ActsVersion = "1.0" | "0.3";

/** The interfaces of the card as ACTS bindings: the 1.0 ones, then the 0.3 ones. */
export function actsInterfaces(discovery: Discovery): { version: ActsVersion; binding: ActsBinding; url: string }[] {
  return (["1.0", "0.3"] as const).flatMap((version) =>
    ACTS_BINDINGS.flatMap((binding) => {
      const i = discovery.interfaces.find((x) => x.version === version && CASE_BINDING[x.binding] === binding);
      return i ? [{ version, binding, url: i.url }] : [];
    }),
  );
}

/** The card the preconditions (§12.5) read on a version's interfaces, as 1.0 JSON: a 0.3 card through the card translator. */
function cardFor(discovery: Discovery, version: ActsVersion): Record<string, unknown> {
  if (version === "0.3" && discovery.card0_3) {
    try {
      return encode(AgentCardSchema, parseAgentCard(discovery.card0_3).value) as Record<string, unknown>;
    } catch {
      // An unreadable 0.3 card: the 1.0 one (if any) still says what the agent offers.
    }
  }
  return discovery.card1_0 ?? {};
}

/** A client test (§10): it judges how a client parses canned answers; a server run leaves it out. */
export function isClientTest(spec: ActsTestSpec): boolean {
  return (spec.test.steps as Record<string, unknown>[]).some((s) => "client_response" in s);
}

/**
 * Runs every server test on every declared interface. Within one interface the tests run one at a
 * time (§4: tests share no state; sequential keeps the load on the agent predictable); the
 * interfaces run side by side, as separate clients would.
 */
export async function runActs(tests: PlannedTest[], discovery: Discovery, opts: ActsRunOptions = {}): Promise<ActsBindingRun[]> {
  const interfaces = actsInterfaces(discovery).filter(
    (i) => (!opts.bindings || opts.bindings.includes(i.binding)) && (!opts.versions || opts.versions.includes(i.version)),
  );
  return Promise.all(
    interfaces.map(async (iface): Promise<ActsBindingRun> => {
      const ctx: ActsContext = {
        version: iface.version,
        binding: iface.binding,
        url: iface.url,
        card: cardFor(discovery, iface.version),
        cardUrl: discovery.cardUrl,
        headers: opts.headers ?? {},
        timeoutMs: opts.timeoutMs ?? 10_000,
        streamTimeoutMs: opts.streamTimeoutMs ?? 15_000,
        ...(opts.sent ? { sent: opts.sent } : {}),
      };
      const started = Date.now();
      const results: ActsTestResult[] = [];
      const adjudicated: AdjudicatedResult[] = [];
      for (const spec of tests) {
        if (isClientTest(spec)) continue;
        if (opts.only && !opts.only(String(spec.test.id))) continue;
        const by03 = iface.version === "0.3" ? notExpressibleOn03(String(spec.test.id), iface.binding) : undefined;
        if (by03) {
          const t = spec.test;
          const r: ActsTestResult = {
            id: String(t.id),
            name: String(t.name),
            level: t.level as ActsTestResult["level"],
            result: "skip",
            duration_ms: 0,
            skip_reason: by03,
          };
          results.push(r);
          opts.onResult?.(iface, r);
          continue;
        }
        const r = await runActsTest(spec, ctx);
        if (spec.adjudication) {
          const published = await runActsTest(spec.adjudication.published, ctx);
          const { record } = spec.adjudication;
          adjudicated.push({
            record,
            published,
            adjudicated: r,
            line: adjudicationLine(record, published, r),
            stale: passesBoth(published, r),
          });
        }
        results.push(r);
        opts.onResult?.(iface, r);
      }
      return { ...iface, results, adjudicated, durationMs: Date.now() - started };
    }),
  );
}
