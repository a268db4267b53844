// Runs client compliance cases: for each case a fresh fixture server plays the server side, the
// client's driver is run once with the case's instruction, and the case passes when the client
// fetched the card, sent every expected request (and nothing else) as the case describes, and
// the driver reported the expected result. Results use the server suite's CaseResult and Report
// shapes, so the same console, JSON, JUnit and HTML reporters render them.
import type { Case, Version } from "../cases.js";
import { assertGlobsMatch, globToRegExp } from "../cases.js";
import type { Discovery } from "../discovery.js";
import type { WireResponse } from "../http.js";
import { Scope, match, type Diff } from "../match.js";
import { applyKnownFailing, loadKnownFailing, type KnownFailingEntry } from "../known-failing.js";
import { buildReport, consoleReport, runFilters, type ConsoleOptions, type Report } from "../report.js";
import { coverage, loadCatalogue } from "../requirements.js";
import { resultHead, verdict, type CaseResult, type StepResult } from "../runner.js";
import { CLIENT_CASES_DIR, loadClientCases, type ClientCase } from "./cases.js";
import { driverFailure, runDriver, unsupportedReason } from "./driver.js";
import { resultIn1_0 } from "./results.js";
import { compareRequest, defaultCard, startFixtureServer, type FixtureRun, type RecordedRequest } from "./fixture-server.js";

export interface ClientSuiteOptions {
  /** The driver command; `{url}` is replaced by the fixture server's URL. */
  command: string[];
  versions?: Version[];
  bindings?: ("json-rpc" | "rest" | "grpc")[];
  caseGlobs?: string[];
  level?: "must" | "should" | "may";
  /** Bound for one driver run (default 20 000 ms). */
  timeoutMs?: number;
  casesDir?: string;
  catalogueFile?: string;
  /** Known-failing list (same format as the server suite's): listed failures are expected, listed passes fail the run. */
  knownFailingFile?: string;
  /** SHOULD and MAY failures fail the run too (else they are warnings). */
  strict?: boolean;
  /** Cases run at the same time, each with its own fixture server (default 1). */
  concurrency?: number;
  onProgress?: (event: { index: number; total: number; result: CaseResult }) => void;
}

const LEVEL_RANK = { MUST: 0, SHOULD: 1, MAY: 2 } as const;
const LIMIT_RANK = { must: 0, should: 1, may: 2 } as const;

export function selectClientCases(
  cases: ClientCase[],
  opts: Pick<ClientSuiteOptions, "versions" | "bindings" | "caseGlobs" | "level">,
): ClientCase[] {
  const globs = opts.caseGlobs?.map(globToRegExp);
  return cases.filter(
    (c) =>
      (!opts.versions || opts.versions.includes(c.version)) &&
      (!opts.bindings || opts.bindings.includes(c.binding)) &&
      (!globs || globs.some((g) => g.test(c.id))) &&
      (!opts.level || LEVEL_RANK[c.level] <= LIMIT_RANK[opts.level]),
  );
}

function asWire(rec: RecordedRequest, base: string) {
  return { method: rec.method, url: base + rec.url, headers: rec.headers, ...(rec.body !== undefined ? { body: rec.body } : {}) };
}

/** What the client sent, as a step's actual side (with `sent`, so reports show its method and path). */
function asActual(rec: RecordedRequest, status: number): { actual: WireResponse; sent: { method: string; path: string } } {
  const actual = {
    status,
    headers: rec.headers,
    ...(rec.json !== undefined ? { json: rec.json } : rec.body !== undefined ? { text: rec.body } : {}),
  };
  return { actual, sent: { method: rec.method, path: rec.url } };
}

type Json = Record<string, unknown>;

/**
 * The header(s) that carry `token` as the card's declared scheme says, for a client whose
 * application sets the auth header: the first scheme of the first security requirement (1.0
 * `securityRequirements[].schemes`, 0.3 `security[]`), else the first declared scheme. An API key
 * goes in the header it names; HTTP auth, OAuth 2.0 and OpenID Connect in `Authorization` with the
 * HTTP scheme (Bearer unless it names another). Undefined when no scheme is sent in a header.
 */
export function credentialHeaders(card: Json, token: string): Record<string, string> | undefined {
  const schemes = (card.securitySchemes ?? {}) as Record<string, Json>;
  const requirement =
    (card.securityRequirements as { schemes?: Json }[] | undefined)?.[0]?.schemes ?? (card.security as Json[] | undefined)?.[0];
  const name = Object.keys(requirement ?? {}).find((n) => n in schemes) ?? Object.keys(schemes)[0];
  const s = name === undefined ? undefined : schemes[name];
  if (!s) return undefined;
  const apiKey = (s.apiKeySecurityScheme ?? (s.type === "apiKey" ? s : undefined)) as Json | undefined;
  if (apiKey) return (apiKey.location ?? apiKey.in) === "header" && typeof apiKey.name === "string" ? { [apiKey.name]: token } : undefined;
  const http = (s.httpAuthSecurityScheme ?? (s.type === "http" ? s : undefined)) as Json | undefined;
  if (http)
    return { Authorization: `${typeof http.scheme === "string" && !/^bearer$/i.test(http.scheme) ? http.scheme : "Bearer"} ${token}` };
  if (s.oauth2SecurityScheme || s.openIdConnectSecurityScheme || s.type === "oauth2" || s.type === "openIdConnect")
    return { Authorization: `Bearer ${token}` };
  return undefined;
}

/**
 * The instruction sent to the driver: the case's, with its version and binding unless it names
 * its own, and with a `token` the `credentialHeaders` it goes in under the case's card.
 */
export function instructionFor(c: ClientCase): Record<string, unknown> {
  const ins: Json = { version: c.version, binding: c.binding, ...c.instruction };
  const headers = typeof ins.token === "string" ? credentialHeaders(c.card ?? defaultCard(c), ins.token) : undefined;
  return headers ? { ...ins, credentialHeaders: headers } : ins;
}

/** The case's further checks, each a step at its own level; "not run" when what it checks is missing. */
function checkSteps(c: ClientCase, fixture: FixtureRun, result: unknown): StepResult[] {
  return (c.checks ?? []).map((k) => {
    const own = { level: k.level, spec: k.spec };
    if (k.request) {
      const o = fixture.outcomes.find((x) => x.exchange.name === k.exchange);
      if (!o?.request)
        return { name: `${k.name} (${k.exchange} not sent)`, expected: k.request as never, diffs: [], status: "not run", ...own };
      const diffs = compareRequest(k.request, o.request, fixture.ifacePath, new Scope(fixture.vars));
      const seen = { request: asWire(o.request, fixture.url), ...asActual(o.request, o.responseStatus ?? 0) };
      return { name: k.name, expected: k.request as never, ...seen, diffs, status: diffs.length ? "fail" : "pass", ...own };
    }
    if (result === undefined)
      return { name: `${k.name} (no driver result)`, expected: { body: k.result }, diffs: [], status: "not run", ...own };
    const diffs = match(k.result, result, "/result", new Scope(new Map()));
    return {
      name: k.name,
      expected: { body: k.result },
      actual: { status: 0, headers: {}, json: result },
      diffs,
      status: diffs.length ? "fail" : "pass",
      ...own,
    };
  });
}

export async function runClientCase(
  c: ClientCase,
  opts: Pick<ClientSuiteOptions, "command" | "timeoutMs" | "strict">,
): Promise<CaseResult> {
  const started = Date.now();
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const fixture = await startFixtureServer(c);
  let outcome;
  try {
    outcome = await runDriver(opts.command, fixture.url, instructionFor(c), timeoutMs);
  } finally {
    await fixture.close();
  }
  const head = resultHead(c);
  const unsupported = outcome.timedOut ? undefined : unsupportedReason(outcome.result);
  if (unsupported !== undefined)
    return { ...head, status: "skip", reason: `unsupported by the client: ${unsupported}`, steps: [], durationMs: Date.now() - started };
  const steps: StepResult[] = [];
  const cardDiffs: Diff[] = fixture.cardFetches.length
    ? []
    : [
        {
          path: "/path",
          expected: "GET /.well-known/agent-card.json",
          actual: undefined,
          message: "the client never fetched the agent card",
        },
      ];
  steps.push({
    name: "agent card",
    expected: { method: "GET", path: "/.well-known/agent-card.json" } as never,
    ...(fixture.cardFetches[0] ? { request: asWire(fixture.cardFetches[0], fixture.url), ...asActual(fixture.cardFetches[0], 200) } : {}),
    diffs: cardDiffs,
    status: cardDiffs.length ? "fail" : "pass",
  });
  for (const o of fixture.outcomes) {
    const name = o.exchange.name ?? `request ${o.index + 1}`;
    const expected = o.exchange.request as never;
    const own = { ...(o.exchange.level ? { level: o.exchange.level } : {}), ...(o.exchange.spec ? { spec: o.exchange.spec } : {}) };
    if (o.status === "skipped" || (o.status === "not received" && o.exchange.optional)) {
      steps.push({ name: `${name} (optional, not sent)`, expected, diffs: [], status: "not run" });
      continue;
    }
    if (o.status === "not received") {
      steps.push({
        name,
        expected,
        diffs: [{ path: "", expected: "this request", actual: undefined, message: "the client never sent this request" }],
        status: "fail",
        ...own,
      });
      continue;
    }
    steps.push({
      name,
      expected,
      request: asWire(o.request!, fixture.url),
      ...asActual(o.request!, o.responseStatus ?? 0),
      diffs: o.diffs,
      status: o.status === "pass" ? "pass" : "fail",
      ...own,
    });
  }
  for (const u of fixture.unexpected)
    steps.push({
      name: "unexpected request",
      expected: { body: "no request here" },
      request: asWire(u.request, fixture.url),
      ...asActual(u.request, 500),
      diffs: [
        {
          path: "",
          expected: "no request",
          actual: `${u.request.method} ${u.request.url}`,
          message: `unexpected request ${u.request.method} ${u.request.url}`,
        },
        ...u.diffs,
      ],
      status: "fail",
    });
  // Without a result the driver's failure is the cause (shown first), not the requests it never got to.
  let error = driverFailure(outcome, timeoutMs);
  let result: unknown;
  try {
    if (!error) result = resultIn1_0(outcome.result);
  } catch (e) {
    error = `the driver's "version": "0.3" result does not convert to A2A 1.0: ${(e as Error).message}`;
  }
  const resultDiffs = error ? [] : match(c.result, result, "/result", new Scope(new Map()));
  const driverStep: StepResult = {
    name: "driver result",
    expected: { body: c.result },
    actual: {
      status: outcome.exitCode ?? -1,
      headers: {},
      ...(result !== undefined
        ? { json: result }
        : outcome.result !== undefined
          ? { json: outcome.result }
          : { text: outcome.stdout.slice(-2000) }),
    },
    diffs: resultDiffs,
    status: error || resultDiffs.length ? "fail" : "pass",
    ...(error ? { error } : {}),
  };
  if (error) steps.unshift(driverStep);
  else steps.push(driverStep);
  steps.push(...checkSteps(c, fixture, error ? undefined : result));
  const judged = verdict(c.level, steps, opts.strict);
  if (error) judged.reason = `driver result: ${error}`;
  return { ...head, ...judged, steps, durationMs: Date.now() - started };
}

export async function runClientSuite(opts: ClientSuiteOptions): Promise<Report> {
  const startedAt = new Date();
  const all = loadClientCases(opts.casesDir ?? CLIENT_CASES_DIR, opts.catalogueFile);
  const knownFailing = opts.knownFailingFile ? loadKnownFailing(opts.knownFailingFile) : undefined;
  assertGlobsMatch(
    all.map((c) => c.id),
    opts.caseGlobs,
  );
  const selected = selectClientCases(all, opts);
  let results: CaseResult[] = new Array<CaseResult>(selected.length);
  // One iterator shared by the workers: each takes the next case when it is free.
  const queue = selected.entries();
  let done = 0;
  const worker = async () => {
    for (const [i, c] of queue) {
      const result = await runClientCase(c, opts);
      results[i] = result;
      opts.onProgress?.({ index: done++, total: selected.length, result });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 1, selected.length)) }, worker));
  let stale: KnownFailingEntry[] = [];
  if (knownFailing) ({ results, stale } = applyKnownFailing(results, all as unknown as Case[], knownFailing));
  const catalogue = loadCatalogue(opts.catalogueFile);
  const target = opts.command.join(" ");
  const discovery: Discovery = {
    agentUrl: target,
    cardUrl: "",
    interfaces: [],
    capabilities: { "1.0": {}, "0.3": {} },
    notes: [],
  };
  const report = buildReport({
    target,
    startedAt,
    finishedAt: new Date(),
    discovery,
    filters: runFilters(opts),
    results,
    stale,
    ...(opts.knownFailingFile ? { knownFailingFile: opts.knownFailingFile } : {}),
    coverage: coverage(catalogue, all as unknown as Case[]).filter((r) => r.role === "client"),
    suite: all as unknown as Case[],
    // A client case is selected for the version and binding it names; there is no card to declare them.
    declared: () => true,
  });
  report.tool = "a2a-toolkit test-client";
  return report;
}

/** The server suite's console report, saying what the client was tested against. */
export function clientConsoleReport(report: Report, opts: ConsoleOptions = {}): string {
  return consoleReport(report, { ...opts, about: ["fixture server: one per scenario on 127.0.0.1"] });
}
