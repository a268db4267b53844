// An ACTS run: the files (the pinned corpus by default, or the given files and directories,
// master files' `include` followed), each server test on every 1.0 binding the card declares.
//
//   loadActsTests(paths?)             → {tests, deviations, files}
//   runActs(discovery, opts)          → ActsRun: per binding the §13 test results
//   ACTS_CORPUS_DIR                   the materialised corpus (spec/upstream/acts/, `make spec`)
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { packagePath } from "../../runtime/package-root.js";
import type { Discovery } from "../discovery.js";
import { loadActsFile, type ActsDeviation } from "./load.js";
import { adjudicationLine, passesBoth, type Adjudication, type PlannedTest } from "./adjudicate.js";
import { ACTS_BINDINGS, runActsTest, type ActsBinding, type ActsContext, type ActsTestResult, type ActsTestSpec } from "./execute.js";

export const ACTS_CORPUS_DIR = packagePath("spec", "upstream", "acts");

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
  /** Test ids to run (default: all). */
  only?: (id: string) => boolean;
  onResult?: (binding: ActsBinding, result: ActsTestResult) => void;
}

const CASE_BINDING: Record<string, ActsBinding> = { "json-rpc": "jsonrpc", rest: "rest", grpc: "grpc" };

/** The 1.0 interfaces of the card, as ACTS bindings. */
export function actsInterfaces(discovery: Discovery): { binding: ActsBinding; url: string }[] {
  return ACTS_BINDINGS.flatMap((binding) => {
    const i = discovery.interfaces.find((x) => x.version === "1.0" && CASE_BINDING[x.binding] === binding);
    return i ? [{ binding, url: i.url }] : [];
  });
}

/** A client test (§10): it judges how a client parses canned answers; a server run leaves it out. */
export function isClientTest(spec: ActsTestSpec): boolean {
  return (spec.test.steps as Record<string, unknown>[]).some((s) => "client_response" in s);
}

/**
 * Runs every server test on every declared 1.0 binding, one test at a time (§4: tests share no state;
 * sequential keeps the load on the agent predictable).
 */
export async function runActs(tests: PlannedTest[], discovery: Discovery, opts: ActsRunOptions = {}): Promise<ActsBindingRun[]> {
  const card = discovery.card1_0 ?? {};
  const runs: ActsBindingRun[] = [];
  for (const iface of actsInterfaces(discovery)) {
    if (opts.bindings && !opts.bindings.includes(iface.binding)) continue;
    const ctx: ActsContext = {
      binding: iface.binding,
      url: iface.url,
      card,
      cardUrl: discovery.cardUrl,
      headers: opts.headers ?? {},
      timeoutMs: opts.timeoutMs ?? 10_000,
      streamTimeoutMs: opts.streamTimeoutMs ?? 15_000,
    };
    const started = Date.now();
    const results: ActsTestResult[] = [];
    const adjudicated: AdjudicatedResult[] = [];
    for (const spec of tests) {
      if (isClientTest(spec)) continue;
      if (opts.only && !opts.only(String(spec.test.id))) continue;
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
      opts.onResult?.(iface.binding, r);
    }
    runs.push({ binding: iface.binding, url: iface.url, results, adjudicated, durationMs: Date.now() - started });
  }
  return runs;
}
