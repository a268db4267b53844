// A projected scenario step's own wire: what the answer must look like undecoded beyond its pair's
// wire rule (`x-a2a-toolkit.onWire`: member spelling, what the 1.0 view drops, an error's `data`,
// response headers), and request headers beyond the rule's (`x-a2a-toolkit.headers`). Both are
// written once per step, scoped by version or pair where the rule differs, so a check of a wire
// property of an ordinary operation needs no raw step per pair (compliance/README.md, "A step's
// own wire checks").
import type { CaseExpect, Version } from "./cases.js";
import { isPlainObject } from "./match.js";
import type { WireBinding } from "./projection.js";

/** Matchers on the undecoded answer, each merged into the pair's rule expectation. */
export interface StepWireCheck {
  status?: unknown;
  headers?: Record<string, unknown>;
  /** The whole body as sent (JSON-RPC: the envelope). */
  body?: unknown;
  /** The pair's own payload: JSON-RPC `result` (`error` on an error step), else the body; a stream's every event. */
  payload?: unknown;
}

/** Per scope ("*", a version "1.0", or a pair "0.3/rest"): the checks of every scope that applies, general first. */
export type ScopedWireChecks = Record<string, StepWireCheck>;

const SCOPE = /^(\*|(1\.0|0\.3)(\/(json-rpc|rest|grpc))?)$/;

export function wireCheckProblems(checks: unknown, at: string): string[] {
  if (!isPlainObject(checks)) return [`${at}: a map of scope to checks`];
  const problems: string[] = [];
  for (const [scope, c] of Object.entries(checks)) {
    if (!SCOPE.test(scope)) problems.push(`${at}/${scope}: a scope is "*", a version or "<version>/<binding>"`);
    if (!isPlainObject(c)) problems.push(`${at}/${scope}: status, headers, body or payload`);
    else
      for (const k of Object.keys(c))
        if (!["status", "headers", "body", "payload"].includes(k)) problems.push(`${at}/${scope}/${k}: status, headers, body or payload`);
  }
  return problems;
}

function applying(checks: ScopedWireChecks, version: Version, binding: WireBinding): StepWireCheck[] {
  return ["*", version, `${version}/${binding}`].flatMap((s) => (checks[s] ? [checks[s]] : []));
}

/**
 * Both matchers at once: objects merge member by member (ordinary members beside the rule's
 * operators are matched after them, src/compliance/match.ts); elsewhere the step's matcher wins.
 * A member the rule makes `$optional` is required once the step checks it.
 */
export function mergeMatchers(rule: unknown, step: unknown): unknown {
  if (rule === undefined) return step;
  if (!isPlainObject(rule) || !isPlainObject(step)) return step;
  // The rule allows a member to be absent; a step that checks it asks for it (an error's `data`).
  const keys = Object.keys(rule);
  if (keys.length === 1 && keys[0] === "$optional" && !("$optional" in step)) return mergeMatchers(rule.$optional, step);
  const out: Record<string, unknown> = { ...rule };
  for (const [k, v] of Object.entries(step)) out[k] = mergeMatchers(rule[k], v);
  return out;
}

function withCheck(e: CaseExpect, c: StepWireCheck, binding: WireBinding, error: boolean): CaseExpect {
  // A result or an error (`orErrors` beside `expect`): the checks are the result's.
  if (e.forms)
    return {
      ...e,
      forms: Object.fromEntries(
        Object.entries(e.forms).map(([n, f]) => [n, error || n === "result" ? withCheck(f, c, binding, error) : f]),
      ),
    };
  const out: CaseExpect = { ...e };
  if (c.status !== undefined) out.status = c.status;
  if (c.headers) out.headers = mergeMatchers(e.headers ?? {}, c.headers) as Record<string, unknown>;
  let body = c.body;
  if (c.payload !== undefined) body = mergeMatchers(body, binding === "json-rpc" ? { [error ? "error" : "result"]: c.payload } : c.payload);
  if (body === undefined) return out;
  if (e.stream) out.stream = { ...e.stream, each: mergeMatchers(e.stream.each ?? {}, body) };
  else out.body = mergeMatchers(e.body, body);
  return out;
}

/** The pair's expectation with the step's checks of every scope that applies merged in. */
export function withStepWire(
  e: CaseExpect,
  checks: ScopedWireChecks | undefined,
  version: Version,
  binding: WireBinding,
  error = false,
): CaseExpect {
  return applying(checks ?? {}, version, binding).reduce((acc, c) => withCheck(acc, c, binding, error), e);
}

/** The rule's request headers with the step's: a value replaces the rule's, `null` leaves the header out. */
export function withStepHeaders(rule: Record<string, string>, step: Record<string, string | null> | undefined): Record<string, string> {
  if (!step) return rule;
  const lower = new Set(Object.keys(step).map((k) => k.toLowerCase()));
  const out = Object.fromEntries(Object.entries(rule).filter(([k]) => !lower.has(k.toLowerCase())));
  for (const [k, v] of Object.entries(step)) if (v !== null) out[k] = v;
  return out;
}
