// What the compliance-run tests read off a report: the interfaces the suite found, the failures
// (each with its reason, so a failing assertion says why), and the reasons cases were skipped for.
import { expect } from "vitest";
import type { Report } from "../../src/compliance/report.js";

/** Every interface a server of both versions and both bindings declares, in discovery order. */
export const ALL_INTERFACES = ["1.0 json-rpc", "1.0 rest", "0.3 json-rpc", "0.3 rest"];
/** What a server (or gateway) serving gRPC too declares: the HTTP interfaces, then gRPC at each version. */
export const WITH_GRPC = ["1.0 json-rpc", "1.0 rest", "1.0 grpc", "0.3 json-rpc", "0.3 rest", "0.3 grpc"];

export function interfacesOf(report: Report): string[] {
  return report.discovery.interfaces.map((i) => `${i.version} ${i.binding}`);
}

/** Failures and warnings (SHOULD/MAY failures): a run that is meant to be clean has neither. */
export function failuresOf(report: Report): string[] {
  return report.results.filter((r) => r.status === "fail" || r.status === "warn").map((r) => `${r.id}: ${r.reason}`);
}

/** Skips of agent-agnostic cases where the agent chose otherwise (a message, a task in another state): never a defect. */
export const AGENT_CHOSE_OTHERWISE =
  /^(the agent answered with a message|the agent did not answer with a task|the stream carried a message)/;

/** Every skipped case was skipped for a reason `allowed` (or AGENT_CHOSE_OTHERWISE) matches. */
export function expectSkipsFor(report: Report, allowed: RegExp): void {
  for (const r of report.results.filter((x) => x.status === "skip"))
    expect(r.reason, r.id).toMatch(new RegExp(`${allowed.source}|${AGENT_CHOSE_OTHERWISE.source}`));
}
