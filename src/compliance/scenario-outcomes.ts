// Outcomes of a scenario step that are no single A2A error type and no single result
// (compliance/README.md "Writing a scenario"): what each (version, binding) accepts as "an error of
// the agent's choice" in the binding's error shape (`refused: error`). Kept apart from
// scenarios.ts's projection so that each outcome is one function with its reason.
import type { CaseExpect, Version } from "./cases.js";
import type { WireBinding } from "./projection.js";
import { AIP193_ERROR, CLIENT_ERROR_STATUS, type WireRule } from "./wire-rules.js";

/**
 * `refused: error` with `expect_error: {}`: the agent refuses with an error of its choice, in the
 * pair's full error shape, where `refused: true` asks only that the request is not served.
 * JSON-RPC: an error envelope echoing the id with an integer code (the pair's refusal already is
 * that); gRPC: a status other than OK; 0.3 HTTP+JSON: the first, type-independent check of the
 * pair's error rule (a client error that is no authentication refusal, with a JSON body in a known
 * 0.3 error shape; 0.3 has no status table); 1.0 HTTP+JSON: the same statuses with the §11.6 error
 * object (the projection spells it in both of §11.6's shapes).
 */
export function anyError(rule: WireRule, version: Version, binding: WireBinding, rpcId: string | number): CaseExpect {
  if (binding !== "rest") return rule.refused(rpcId);
  // 0.3's first check names no status of its own, so any type's is every type's.
  if (version === "0.3") return rule.error("InternalError", rpcId)[0]!.expect;
  return { status: CLIENT_ERROR_STATUS, body: AIP193_ERROR };
}
