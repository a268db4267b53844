// Every translation between 0.3 and 1.0 returns the value and the list of what it could not
// carry. The ids are the rows of the loss register (LOSSY.md; a2a-wire.md §2.15).

import type { ValidateFunction } from "ajv";

export type LossDirection = "to-0.3" | "to-1.0";

export interface Loss {
  /** Loss-register row, "L1" … "L28". */
  id: `L${number}`;
  direction: LossDirection;
  /** JSON Pointer of the affected value in the input. */
  path: string;
  /** What was dropped or approximated, in words. */
  detail: string;
}

export interface Translated<T> {
  value: T;
  losses: Loss[];
  /**
   * The validator the translation checked its output with, beside that output: a later decode of
   * the same value (`validated.value === value`) need not validate it again.
   */
  validated?: { value: unknown; validator: ValidateFunction };
}

/** Collects losses while a translation walks a value. */
export class LossLog {
  readonly losses: Loss[] = [];
  constructor(readonly direction: LossDirection) {}
  add(id: Loss["id"], path: string, detail: string): void {
    this.losses.push({ id, direction: this.direction, path, detail });
  }
  done<T>(value: T): Translated<T> {
    return { value, losses: this.losses };
  }
}

/** The register rows (a2a-wire.md §2.15), one line each; LOSSY.md has the policy and the code location. */
export const LOSS_REGISTER: Readonly<Record<string, { direction: LossDirection | "both"; summary: string }>> = {
  L1: { direction: "to-0.3", summary: "tenant on requests and on AgentInterface" },
  L2: { direction: "to-0.3", summary: "per-interface protocolVersion; interfaces for versions other than 0.x" },
  L3: { direction: "to-0.3", summary: "Part.mediaType/filename on text and data parts" },
  L4: { direction: "to-0.3", summary: "Part.data holding a non-object value" },
  L5: { direction: "to-0.3", summary: "the implicit end of a 1.0 stream (0.3 needs final)" },
  L6: { direction: "to-0.3", summary: "the ListTasks operation" },
  L7: { direction: "to-0.3", summary: "push-config list paging" },
  L8: { direction: "to-0.3", summary: "OAuth deviceCode flow and pkceRequired" },
  L9: { direction: "both", summary: "AgentCard signatures" },
  L10: {
    direction: "to-0.3",
    summary: "historyLength 0 (no history) towards D03-PB, whose readers differ on 0 (the proto comment: unlimited)",
  },
  L11: {
    direction: "to-0.3",
    summary: "fields the v0.3.0 proto (D03-PB) lacks: referenceTaskIds, part metadata, file name, iconUrl, cancel metadata",
  },
  L12: { direction: "to-0.3", summary: "error codes -32008/-32009 undefined in 0.3" },
  L13: { direction: "to-0.3", summary: "AUTH_REQUIRED is interrupted in 1.0, not in 0.3 (final derivation)" },
  L14: { direction: "to-1.0", summary: "capabilities.stateTransitionHistory" },
  L15: { direction: "to-1.0", summary: "push authentication schemes after the first" },
  L16: { direction: "to-1.0", summary: "several OAuth flows in one scheme" },
  L17: { direction: "to-1.0", summary: "metadata on tasks/get, tasks/resubscribe and push-config get/list/delete params" },
  L18: { direction: "to-1.0", summary: "card protocolVersion patch level" },
  L19: { direction: "to-1.0", summary: "timestamp zone/offset/format and digits beyond nanoseconds" },
  L20: { direction: "to-1.0", summary: "kind discriminators (redundant; re-derived)" },
  L21: { direction: "to-1.0", summary: "TaskStatusUpdateEvent.final" },
  L22: { direction: "to-1.0", summary: "D03-PB blocking: absent and false are indistinguishable" },
  L23: { direction: "to-1.0", summary: "push-config get without pushNotificationConfigId" },
  L24: { direction: "both", summary: "unknown fields and fields with no counterpart" },
  L25: { direction: "both", summary: "integer precision inside Struct/Value" },
  L26: { direction: "to-0.3", summary: "Task.contextId optional in 1.0, required in 0.3" },
  L27: { direction: "to-1.0", summary: "empty parts arrays" },
  L28: { direction: "both", summary: "JSON-RPC error.data shapes" },
};
