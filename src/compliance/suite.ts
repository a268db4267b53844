// One call for a whole run: load and validate the cases and the catalogue, read the agent card,
// run the selected cases, apply a known-failing list and build the report.
import { assertGlobsMatch, CASES_DIR, CaseLoadError, loadCases, loadExtraCases, type Case } from "./cases.js";
import { discover } from "./discovery.js";
import { resolveBehaviours, type BehaviourOptions } from "./profiles.js";
import { applyKnownFailing, loadKnownFailing, type KnownFailingEntry } from "./known-failing.js";
import { buildReport, runFilters, type Report } from "./report.js";
import { coverage, loadCatalogue, unknownRequirementIds, type Citing } from "./requirements.js";
import { loadClientCases } from "./client/cases.js";
import { runCases, selectCases, type CaseResult, type RunOptions, type SelectOptions } from "./runner.js";
import type { MessageBudget } from "./pacing.js";
import { startWebhookSink } from "./webhook-sink.js";
import type { ActsSuiteOptions, runActsInSuite } from "./acts/suite.js";

export interface SuiteOptions extends SelectOptions, Omit<RunOptions, "webhook">, Pick<BehaviourOptions, "profile" | "behaviours"> {
  /** The agent's base URL (any path prefix), its card URL (any path) or an interface URL (src/transport/card-urls.ts). */
  target: string;
  /** Start a webhook receiver for the push-delivery cases (publicUrl: the URL agents should use, default http://host:port). */
  webhook?: { host: string; port: number; publicUrl?: string };
  /** Replaces the built-in cases directory (compliance/cases/). */
  casesDir?: string;
  /** More case directories (`test --cases`), IDs namespaced by directory (cases.ts loadExtraCases). */
  extraCasesDirs?: string[];
  /** Run only the cases of extraCasesDirs (`test --only-cases`). */
  onlyExtraCases?: boolean;
  catalogueFile?: string;
  knownFailingFile?: string;
  /** `--acts`: run ACTS files (default: the pinned corpus) too, or only them (acts/suite.ts). */
  acts?: ActsSuiteOptions;
}

/**
 * The client-conformance cases (compliance/client-cases/, `a2a-toolkit test-client`) count for the
 * coverage table too, so a rule is "not covered" only when neither suite checks it. IDs are
 * prefixed "client:" to tell them apart. A client case that does not load is noted, not fatal here.
 */
function clientCases(notes: string[]): Citing[] {
  try {
    return loadClientCases().map((c) => ({ id: `client:${c.id}`, requirements: c.requirements }));
  } catch (e) {
    notes.push(`client cases not counted for coverage: ${(e as Error).message.split("\n")[0]}`);
    return [];
  }
}

/**
 * The cases a run with these options selects (`test --list`), loaded and checked as runSuite
 * loads them: a case file that does not load or a --case glob that matches nothing throws.
 */
export function selectedCases(opts: Omit<SuiteOptions, "target">): Case[] {
  return loadSuite(opts).selected;
}

function loadSuite(opts: Omit<SuiteOptions, "target">) {
  if (opts.onlyExtraCases && !opts.extraCasesDirs?.length) throw new Error("SuiteOptions.onlyExtraCases needs extraCasesDirs");
  const extra = opts.extraCasesDirs?.length ? loadExtraCases(opts.extraCasesDirs) : [];
  // --acts with --only-acts: the built-in cases are neither loaded nor run.
  const builtIn = opts.onlyExtraCases || opts.acts?.only ? [] : loadCases(opts.casesDir ?? CASES_DIR);
  const all = [...builtIn, ...(opts.acts?.only ? [] : extra)];
  const catalogue = loadCatalogue(opts.catalogueFile);
  const unknown = unknownRequirementIds(catalogue, all);
  if (unknown.length)
    throw new CaseLoadError(
      unknown.map((u) => `${u.case}: /requirements: unknown requirement ID "${u.id}" (not in compliance/requirements.json)`),
    );
  const knownFailing = opts.knownFailingFile ? loadKnownFailing(opts.knownFailingFile) : undefined;
  assertGlobsMatch(
    all.map((c) => c.id),
    opts.caseGlobs,
  );
  return { all, catalogue, knownFailing, selected: selectCases(all, opts) };
}

export async function runSuite(opts: SuiteOptions): Promise<Report> {
  const startedAt = new Date();
  const { all, catalogue, knownFailing, selected } = loadSuite(opts);
  const discovery = await discover(opts.target, opts.timeoutMs, opts.headers);
  // The probe is a message too: it is sent only when a tck case is selected and the budget allows one.
  const probeAllowed = selected.some((c) => c.behaviours.includes("tck")) && (opts.maxMessages ?? Infinity) > 0;
  const probed = await resolveBehaviours(discovery, { ...opts, probe: probeAllowed });
  const discoveryNotes = discovery.notes;
  const sink = opts.webhook ? await startWebhookSink(opts.webhook, opts.webhook.publicUrl) : undefined;
  let results: CaseResult[];
  const budget: MessageBudget = { left: (opts.maxMessages ?? Infinity) - (probed ? 1 : 0), sent: probed ? 1 : 0 };
  try {
    results = await runCases(selected, discovery, { ...opts, webhook: sink }, budget);
  } finally {
    await sink?.close();
  }
  let acts: Awaited<ReturnType<typeof runActsInSuite>> | undefined;
  if (opts.acts) {
    const { runActsInSuite } = await import("./acts/suite.js");
    const total = results.length;
    let index = total;
    acts = await runActsInSuite(
      discovery,
      {
        ...opts.acts,
        strict: opts.strict,
        headers: opts.headers,
        timeoutMs: opts.timeoutMs,
        streamTimeoutMs: opts.streamTimeoutMs,
        bindings: opts.bindings?.map((b) => (b === "json-rpc" ? "jsonrpc" : b)),
      },
      (result) => opts.onProgress?.({ index: index++, total: index, result }),
    );
    results = [...results, ...acts.results];
  }
  let stale: KnownFailingEntry[] = [];
  // ACTS results are cases a known-failing list may name (acts/<id>@<binding>).
  const listed = acts ? [...all, ...acts.results.map((r) => ({ id: r.id }) as Case)] : all;
  if (knownFailing) ({ results, stale } = applyKnownFailing(results, listed, knownFailing));
  if (acts) stale = [...stale, ...acts.stale];
  const report = buildReport({
    target: opts.target,
    startedAt,
    finishedAt: new Date(),
    discovery,
    filters: runFilters(opts),
    results,
    stale,
    knownFailingFile: opts.knownFailingFile,
    coverage: coverage(catalogue, [...all, ...(opts.acts?.only ? [] : clientCases(discoveryNotes))]),
    suite: all,
    messagesSent: (budget.sent ?? 0) + (acts?.messagesSent ?? 0),
  });
  return acts ? { ...report, acts: acts.report } : report;
}
