// Faults in the data objects of results and events: member names, enum spellings, timestamps,
// `kind` discriminators, required members and task ids.
import { A2A_PROTO, bodies, isTask, mapObjects, onPayload, TIMESTAMP, V03_DATA, V1_REQUIRED } from "./helpers.js";
import type { Citation, Json, JsonObject, Rewrite } from "./types.js";

/** Renames one member of every object (keeping its place among the members). */
function renameMember(from: string, to: string): (j: Json) => Json {
  return (j) => mapObjects(j, (o) => (from in o ? Object.fromEntries(Object.entries(o).map(([k, v]) => [k === from ? to : k, v])) : o));
}

/** The same instant as a UTC timestamp, written with a +01:00 offset. */
function withOffset(ts: string): string {
  const ms = Date.parse(ts);
  if (!TIMESTAMP.test(ts) || Number.isNaN(ms)) return ts;
  return `${new Date(ms + 3_600_000).toISOString().slice(0, -1)}+01:00`;
}

const ROLES = new Set(["ROLE_USER", "ROLE_AGENT"]);

const V1_ENUMS: Citation = {
  version: "1.0.1",
  section: "5.5",
  quote:
    "Enum values MUST be represented according to the [ProtoJSON specification](https://protobuf.dev/programming-guides/json/), which serializes enums as their string names as defined in the Protocol Buffer definition (typically SCREAMING_SNAKE_CASE).",
};

export const OBJECT_FAULTS: readonly Rewrite[] = [
  {
    name: "v03-kind-missing",
    kind: "fault",
    description: "0.3 JSON-RPC results (and stream events) carry no `kind` discriminator",
    spec: [V03_DATA],
    applies: { versions: ["0.3"], bindings: ["json-rpc"] },
    ...onPayload((p) => {
      if (!("kind" in p)) return p;
      const { kind: _dropped, ...rest } = p;
      return rest;
    }),
  },
  {
    name: "state-lower-case",
    kind: "fault",
    description: "1.0 task states written in lower case (task_state_completed)",
    spec: [V1_ENUMS],
    applies: { versions: ["1.0"] },
    ...bodies((j) =>
      mapObjects(j, (o) => (typeof o.state === "string" && o.state.startsWith("TASK_STATE_") ? { ...o, state: o.state.toLowerCase() } : o)),
    ),
  },
  {
    name: "role-unprefixed",
    kind: "fault",
    description: "1.0 message roles written without their enum prefix (AGENT, USER)",
    spec: [V1_ENUMS],
    applies: { versions: ["1.0"] },
    ...bodies((j) =>
      mapObjects(j, (o) => (typeof o.role === "string" && ROLES.has(o.role) ? { ...o, role: o.role.slice("ROLE_".length) } : o)),
    ),
  },
  {
    name: "snake-case-context-id",
    kind: "fault",
    description: "results name the context id in snake_case (context_id)",
    spec: [
      {
        version: "1.0.1",
        section: "5.5",
        quote:
          "All JSON serializations of the A2A protocol data model MUST use camelCase naming for field names, not the snake_case convention used in Protocol Buffer definitions.",
      },
      V03_DATA,
    ],
    applies: {},
    ...onPayload((p) => renameMember("contextId", "context_id")(p) as JsonObject),
  },
  {
    name: "context-id-missing",
    kind: "fault",
    description: "tasks in results carry no contextId",
    spec: [V1_REQUIRED, V03_DATA],
    applies: {},
    ...onPayload(
      (p) =>
        mapObjects(p, (o) => {
          if (!isTask(o)) return o;
          const { contextId: _dropped, ...rest } = o;
          return rest;
        }) as JsonObject,
    ),
  },
  {
    name: "timestamp-offset",
    kind: "fault",
    description: "1.0 timestamps written with a +01:00 offset instead of Z (the same instant)",
    spec: [
      { version: "1.0.1", section: "5.6.1", quote: "Timestamps MUST NOT include timezone offsets other than 'Z' (all times are UTC)" },
    ],
    applies: { versions: ["1.0"] },
    ...bodies((j) =>
      mapObjects(j, (o) => {
        if (typeof o.timestamp !== "string") return o;
        const timestamp = withOffset(o.timestamp);
        return timestamp === o.timestamp ? o : { ...o, timestamp };
      }),
    ),
  },
  {
    name: "task-id-reused",
    kind: "fault",
    description: "every task is reported with the same id (the-one-task)",
    spec: [{ version: "1.0.1", section: "3.4.2", quote: "Agents MUST generate a unique taskId for each new task they create" }],
    applies: {},
    ...bodies((j) => mapObjects(j, (o) => (isTask(o) && o.id !== "the-one-task" ? { ...o, id: "the-one-task" } : o))),
  },
  {
    name: "v1-kind-present",
    kind: "fault",
    description: "1.0 tasks, messages and text parts keep the 0.3 `kind` member",
    spec: [A2A_PROTO],
    applies: { versions: ["1.0"] },
    ...onPayload(
      (p) =>
        mapObjects(p, (o) => {
          const kind = isTask(o) ? "task" : typeof o.messageId === "string" ? "message" : typeof o.text === "string" ? "text" : undefined;
          return kind && o.kind !== kind ? { ...o, kind } : o;
        }) as JsonObject,
    ),
  },
];
