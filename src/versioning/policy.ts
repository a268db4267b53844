// What differs between the wire versions in how a server or a client behaves, as one object per
// version. Everything outside src/versioning works in 1.0 messages and asks the request's policy
// (`policyOf(version)`) where the versions' rules differ, instead of testing the version itself
// (ARCHITECTURE.md; test/unit/version-literals.test.ts keeps it so).
//
//   policyOf(version)                 the policy of "1.0" or "0.3" (anything else: 1.0's)
//   knownVersion(v)                   "0.3" for "0.3", else "1.0": the version of a value read back or asked for
//   otherVersion(v)                   the other supported version
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2AError, errorLosses0_3 } from "./errors.js";
import type { Loss } from "./loss.js";
import { normalizeVersion, SUPPORTED_VERSIONS, type ProtocolVersion } from "./negotiate.js";
import { downgradePushPayload } from "./rpc0_3.js";
import { finalFlagFramer, PASS_THROUGH_FRAMER, subscribeToFinishedTask, type StreamFramer } from "./stream.js";

export interface VersionPolicy {
  readonly version: ProtocolVersion;
  /**
   * SubscribeToTask on a terminal task (§5.5): the events to send before the stream closes, or
   * throws. 1.0 answers UnsupportedOperation (1.0 §3.1.6); 0.3 sends the Task (P03 TaskSubscription).
   */
  subscribeToFinished(task: v1_0.Task): v1_0.StreamResponse[];
  /**
   * GetTaskPushNotificationConfig with id "": true when it names the task's sole (or first) config
   * (0.3 `tasks/pushNotificationConfig/get` with TaskIdParams only, loss L23 [V-06]).
   */
  readonly emptyConfigIdIsFirst: boolean;
  /**
   * GetExtendedAgentCard on an agent without one, when the version has its own error for it: 0.3
   * AuthenticatedExtendedCardNotConfiguredError, -32007 (0.3 §8.2). Undefined: the handler's
   * UnsupportedOperationError stands (1.0 §3.3.4).
   */
  readonly noExtendedCard?: () => A2AError;
  /** A request that names no version speaks this one (A2A 1.0 §3.6.2: absent means 0.3). */
  readonly isDefault: boolean;
  /** REST replies may be `application/a2a+json` when the request names it (1.0.1 §11.1); else always application/json. */
  readonly a2aJsonMediaType: boolean;
  /** Requests carry a `tenant` field (1.0); else a target's tenant is not sent, loss L1 (`tenantLoss`). */
  readonly tenantField: boolean;
  /** JSON-RPC GetExtendedAgentCard carries params (1.0 GetExtendedAgentCardRequest; 0.3 sends none). */
  readonly extendedCardParams: boolean;
  /**
   * A client may get this version's HTTP+JSON errors as a bare JSON-RPC error object (`{code,
   * message}`): the official JS SDK answers 0.3 REST errors so, and the code names the error better
   * than the HTTP status does.
   */
  readonly restErrorMayBeRpcObject: boolean;
  /**
   * The webhook body of an event for a config registered in this version, with its content type;
   * null when none can be made (a 0.3 body is the task: `snapshot` gives the task of the event).
   */
  pushBody(event: v1_0.StreamResponseJson, snapshot?: v1_0.TaskJson): { body: string; contentType: string } | null;
  /**
   * A webhook body is the whole task: `pushBody` needs the snapshot, and a newer body supersedes one
   * not yet tried (PushDelivery `supersede0_3`).
   */
  readonly pushBodyIsTask: boolean;
  /** Whether the version defines ListTasks (0.3 does not: UnsupportedOperation, a2a-wire.md §3). */
  readonly listTasks: boolean;
  /** How a server stream frames the 1.0 events (the 0.3 `final` flag, L5/L13). */
  streamFramer(onLoss: (loss: Loss) => void): StreamFramer;
  /** What a JSON-RPC error loses on its way to this version (L12). */
  errorLosses(err: A2AError): Loss[];
}

const V1_0: VersionPolicy = {
  version: "1.0",
  subscribeToFinished: (task) => subscribeToFinishedTask("1.0", task),
  emptyConfigIdIsFirst: false,
  isDefault: normalizeVersion(undefined) === "1.0",
  a2aJsonMediaType: true,
  tenantField: true,
  extendedCardParams: true,
  restErrorMayBeRpcObject: false,
  pushBody: (event) => ({ body: JSON.stringify(event), contentType: "application/a2a+json" }),
  pushBodyIsTask: false,
  listTasks: true,
  streamFramer: () => PASS_THROUGH_FRAMER,
  errorLosses: () => [],
};

const V0_3: VersionPolicy = {
  version: "0.3",
  subscribeToFinished: (task) => subscribeToFinishedTask("0.3", task),
  emptyConfigIdIsFirst: true,
  noExtendedCard: () => new A2AError("ExtendedAgentCardNotConfiguredError", "This agent has no authenticated extended card"),
  isDefault: normalizeVersion(undefined) === "0.3",
  a2aJsonMediaType: false,
  tenantField: false,
  extendedCardParams: false,
  restErrorMayBeRpcObject: true,
  pushBody(event, snapshot) {
    const down = downgradePushPayload(event, snapshot);
    return down.value ? { body: JSON.stringify(down.value), contentType: "application/json" } : null;
  },
  pushBodyIsTask: true,
  listTasks: false,
  streamFramer: (onLoss) => finalFlagFramer(onLoss),
  errorLosses: (err) => errorLosses0_3(err),
};

/** L1: a target's tenant that a request of a version without the field does not carry. */
export function tenantLoss(tenant: string): Loss {
  return {
    id: "L1",
    direction: "to-0.3",
    path: "/tenant",
    detail: `tenant "${tenant}" has no 0.3 field and is not sent; a 0.3 interface URL addresses its tenant itself`,
  };
}

/** The policy of a request's (or a stored value's) version; an unknown one is treated as 1.0. */
export function policyOf(version: string): VersionPolicy {
  return version === "0.3" ? V0_3 : V1_0;
}

/** "0.3" for "0.3", else "1.0". */
export function knownVersion(version: string | undefined): ProtocolVersion {
  return policyOf(version ?? "").version;
}

/** The supported version that is not `version`. */
export function otherVersion(version: ProtocolVersion): ProtocolVersion {
  return SUPPORTED_VERSIONS.find((v) => v !== version) ?? version;
}
