// The rewriting proxy's table of named rewrites (proxy.ts applies them; `a2a-toolkit proxy
// --variant <name> --fault <name>`). A rewrite changes one member, header or frame of what an
// agent answers, and leaves valid JSON and valid SSE:
//   - a variant is another choice the spec allows: its `spec` quotes the sentence that allows it
//     (and `departsFrom` the SHOULD it does not follow, if any); every MUST still holds;
//   - a fault breaks a rule: its `spec` quotes the sentence it violates.
// Each rewrite says which exchanges it applies to (version, binding, operation) and is a set of
// pure functions over the parsed exchange: the request that is forwarded, an answer given
// instead of the agent's, a whole non-streaming reply (status, headers, JSON body), the head of
// a stream, and each SSE event of a stream (one at a time: streams are never buffered).
// Functions never mutate their arguments; they return new values.
//
// This file is the one table the proxy, the CLI and the tests import; the rewrites live in
// rewrites/: types.ts (the shapes), helpers.ts (shared helpers and quoted sentences),
// variants.ts, and the faults by area: errors.ts (envelope, error codes, Content-Type),
// objects.ts (data objects), streams.ts (SSE streams), results.ts (result wrappers), card.ts
// (the agent card) and requests.ts (what is forwarded). Rewrites are applied in table order.
import { CARD_FAULTS } from "./rewrites/card.js";
import { ERROR_FAULTS } from "./rewrites/errors.js";
import { OBJECT_FAULTS } from "./rewrites/objects.js";
import { REQUEST_FAULTS } from "./rewrites/requests.js";
import { RESULT_FAULTS } from "./rewrites/results.js";
import { STREAM_FAULTS } from "./rewrites/streams.js";
import type { Exchange, Rewrite } from "./rewrites/types.js";
import { VARIANTS } from "./rewrites/variants.js";

export type {
  Applies,
  Citation,
  Exchange,
  Json,
  JsonObject,
  Operation,
  ProxyBinding,
  ProxyRequest,
  ProxyVersion,
  Reply,
  Rewrite,
  SseEvent,
  StreamHead,
} from "./rewrites/types.js";
export { mapObjects } from "./rewrites/helpers.js";
export { UNKNOWN_MEMBER } from "./rewrites/variants.js";

// The order of the areas keeps every pair of rewrites that do not commute in the order they had
// in one table (e.g. state-lower-case before the stream faults that look for terminal states,
// stream-task-snapshots before v03-result-wrapped).
export const REWRITES: readonly Rewrite[] = [
  ...VARIANTS,
  ...ERROR_FAULTS,
  ...OBJECT_FAULTS,
  ...STREAM_FAULTS,
  ...RESULT_FAULTS,
  ...CARD_FAULTS,
  ...REQUEST_FAULTS,
];

/** The rewrites named, in table order; an unknown name or a name of the other kind throws. */
export function selectRewrites(variants: string[] = [], faults: string[] = []): Rewrite[] {
  const want = new Map<string, "variant" | "fault">();
  for (const [names, kind] of [
    [variants, "variant"],
    [faults, "fault"],
  ] as const)
    for (const n of names) {
      const r = REWRITES.find((x) => x.name === n);
      if (!r) throw new Error(`unknown ${kind} "${n}" (a2a-toolkit proxy --list names them)`);
      if (r.kind !== kind) throw new Error(`"${n}" is a ${r.kind}: name it with --${r.kind}`);
      want.set(n, kind);
    }
  return REWRITES.filter((r) => want.has(r.name));
}

export function appliesTo(r: Rewrite, ex: Exchange): boolean {
  const a = r.applies;
  if (a.versions && (!ex.version || !a.versions.includes(ex.version))) return false;
  if (!(a.bindings ?? ["json-rpc", "rest"]).includes(ex.binding)) return false;
  return !a.operations || (ex.operation !== undefined && a.operations.includes(ex.operation));
}
