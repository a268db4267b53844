// Round-trip property families shared by the fast run (test/unit/translate-properties.test.ts, default
// `make test`) and the long run (test/properties/, `make test-properties`).
//
// Property, per family and dialect: an arbitrary valid value of one side (drawn from its schema,
// test/support/arbitraries.ts) → translate → the result is valid under the other side's validator
// (the translators check that themselves and throw otherwise) → translate back → equal to the original
// after `normaliseForLosses`, which applies exactly the documented losses of LOSSY.md and the listed
// normalisations, and nothing else. 1.0 and D03-PB values are compared as ProtoJSON (decode + encode
// through protobuf-es), D03-RPC values as plain JSON.
import fc from "fast-check";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { DescMessage } from "@bufbuild/protobuf";
import * as v0_3 from "../../generated/v0_3/index.js";
import * as v1_0 from "../../generated/v1_0/index.js";
import { decode, encode } from "../../src/runtime/protojson.js";
import type { Translated } from "../../src/versioning/loss.js";
import { LossLog } from "../../src/versioning/loss.js";
import * as rest from "../../src/versioning/rest0_3.js";
import * as rpc from "../../src/versioning/rpc0_3.js";
import { DATA_COMPAT_KEY, PART_EXTRAS_KEY, timestampTo1_0 } from "../../src/versioning/translate/common.js";
import { SchemaArbitraries, base64Standard, isoTimestamp } from "../support/arbitraries.js";

type J = { [k: string]: unknown };
const clone = <T>(x: T): T => structuredClone(x);

// ---- arbitraries ------------------------------------------------------------------------------------

const V1_SCHEMA = new URL("../../generated/v1_0/schema.json", import.meta.url);
const PB_SCHEMA = new URL("../../generated/v0_3/schema.json", import.meta.url);
/** a2a.json as `make spec` materialises it; before that, straight from $A2A_SPEC_DIR (default ../shared/spec). */
const RPC_SCHEMA = [
  new URL("../../spec/upstream/v0.3/a2a.json", import.meta.url),
  pathToFileURL(resolve(process.env.A2A_SPEC_DIR ?? fileURLToPath(new URL("../../../shared/spec", import.meta.url)), "v0.3/a2a.json")),
].find((u) => existsSync(u)) as URL;

/** 1.0 values for the D03-RPC families: ROLE_UNSPECIFIED and non-0.3 apiKey locations have no 0.3 form (refused; unit-tested). */
const v1ForRpc = SchemaArbitraries.fromProtoSchema(V1_SCHEMA, {
  overrides: {
    "Message.role": fc.constantFrom("ROLE_USER", "ROLE_AGENT"),
    "APIKeySecurityScheme.location": fc.constantFrom("query", "header", "cookie"),
    "AgentInterface.protocolVersion": fc.constantFrom("0.3", "", "0.3.0", "0.2", "1.0", "2.1"),
  },
});
const v1ForPb = SchemaArbitraries.fromProtoSchema(V1_SCHEMA, {
  overrides: { "AgentInterface.protocolVersion": fc.constantFrom("0.3", "", "0.3.0", "1.0") },
});
/** D03-RPC values. a2a.json types timestamps, bytes and protocolVersion as bare strings; the protocol gives them formats. */
const v3Rpc = SchemaArbitraries.fromA2aJson(RPC_SCHEMA, {
  overrides: {
    "TaskStatus.timestamp": isoTimestamp({ allowNoZone: true, maxFraction: 12 }),
    "FileWithBytes.bytes": base64Standard(),
    "AgentCard.protocolVersion": fc.constantFrom("0.3.0", "0.3", "0.2.6", "0.3.1"),
  },
  // 1.0 needs ≥1 part (L27) and exactly one push auth scheme (L15): empty ones are refused (unit-tested).
  minItems: { "Message.parts": 1, "Artifact.parts": 1, "PushNotificationAuthenticationInfo.schemes": 1 },
});
/** D03-PB values: the v0.3.0 proto marks nothing REQUIRED; these are the fields 1.0 requires. */
const v3Pb = SchemaArbitraries.fromProtoSchema(PB_SCHEMA, {
  require: {
    Task: ["id", "status"],
    TaskStatus: ["state"],
    Message: ["messageId", "role", "content"],
    Artifact: ["artifactId", "parts"],
    TaskStatusUpdateEvent: ["taskId", "contextId", "status"],
    TaskArtifactUpdateEvent: ["taskId", "contextId", "artifact"],
    DataPart: ["data"],
  },
  minItems: { "Message.content": 1, "Artifact.parts": 1 },
  requiredOneofs: ["FilePart", "Part"],
});

/** 1.0 cards must offer a 0.x interface to be shown to a 0.3 reader (L2; the none case is unit-tested). */
const withLegacyInterface = (c: v1_0.AgentCardJson): v1_0.AgentCardJson => {
  const ifaces = c.supportedInterfaces ?? [];
  if (ifaces.some((i) => /^(0\.\d+(\.\d+)?)?$/.test(i.protocolVersion ?? ""))) return c;
  return { ...c, supportedInterfaces: [{ ...ifaces[0], protocolVersion: "0.3" }, ...ifaces.slice(1)] };
};

// ---- canonical forms --------------------------------------------------------------------------------

function schemaIn(mod: object, name: string): DescMessage {
  const s = (mod as Record<string, DescMessage | undefined>)[`${name}Schema`];
  if (!s) throw new Error(`no generated message ${name}`);
  return s;
}
const schema1 = (name: string) => schemaIn(v1_0, name);
const schemaPb = (name: string) => schemaIn(v0_3.pb, name);
const canon = (s: DescMessage, x: unknown) => encode(s, decode(s, x));
export const canon1_0 = (name: string, x: unknown) => canon(schema1(name), x);
export const canonPb = (name: string, x: unknown) => canon(schemaPb(name), x);

// ---- normaliseForLosses: exactly the documented losses ---------------------------------------------

const LEGACY = /^(0\.\d+(\.\d+)?)?$/;
const majorMinor = (v: string) => v.split(".").slice(0, 2).join(".");

function eachPart1(x: unknown, f: (p: J) => void): void {
  // Parts live in Message.parts and Artifact.parts at any depth of the 1.0 families.
  if (Array.isArray(x)) x.forEach((i) => eachPart1(i, f));
  else if (x && typeof x === "object") {
    const o = x as J;
    for (const [k, v] of Object.entries(o)) {
      if (k === "metadata" || k === "data") continue;
      if (k === "parts" && Array.isArray(v)) v.forEach((p) => f(p as J));
      else eachPart1(v, f);
    }
  }
}

function eachMessage1(x: unknown, f: (m: J) => void): void {
  if (Array.isArray(x)) x.forEach((i) => eachMessage1(i, f));
  else if (x && typeof x === "object") {
    const o = x as J;
    if (typeof o.messageId === "string" && Array.isArray(o.parts)) f(o);
    for (const [k, v] of Object.entries(o)) if (k !== "metadata" && k !== "data" && k !== "parts") eachMessage1(v, f);
  }
}

const isObj = (v: unknown): v is J => typeof v === "object" && v !== null && !Array.isArray(v);

/** 1.0 → 0.3 → 1.0: what the documented losses take away from the original 1.0 value. */
export function normalise1_0(family: string, value: unknown, dialect: "rpc" | "pb"): unknown {
  const x = clone(value) as J;
  // L1: tenant, wherever it sits in a request or push config.
  const dropTenant = (o: J | undefined) => o && delete o.tenant;
  dropTenant(x);
  const conf = x.configuration as J | undefined;
  const push = (conf?.taskPushNotificationConfig ?? (family === "PushConfig" ? x : undefined)) as J | undefined;
  dropTenant(push);
  // L24: taskId inside a SendMessage push config.
  if (conf?.taskPushNotificationConfig) delete (conf.taskPushNotificationConfig as J).taskId;
  const parts = (f: (p: J) => void) => (family === "Part" ? f(x) : eachPart1(x, f));
  if (dialect === "rpc") {
    parts((p) => {
      // L3/L4 ride in metadata and come back; an empty metadata object left behind is removed.
      const extras = p.text !== undefined || p.data !== undefined ? p.mediaType || p.filename : false;
      const wrapped = p.data !== undefined && !isObj(p.data);
      if ((extras || wrapped) && isObj(p.metadata) && Object.keys(p.metadata).length === 0) delete p.metadata;
    });
  } else {
    eachMessage1(x, (m) => delete m.referenceTaskIds); // L11
    parts((p) => {
      delete p.metadata; // L11
      delete p.filename; // L11 (file parts), L3 (text/data parts)
      if (p.text !== undefined || p.data !== undefined) delete p.mediaType; // L3
      if (p.data !== undefined && !isObj(p.data)) p.data = { value: p.data }; // L4, not undone on D03-PB
    });
    // L10: historyLength 0 cannot be sent to D03-PB; it comes back unset.
    if (conf && Number(conf.historyLength) === 0) delete conf.historyLength;
  }
  // A configuration left with nothing but `returnImmediately: false` (0.3 `blocking: true`) ≡ absent: the upgrade omits it.
  if (
    conf &&
    ["acceptedOutputModes", "taskPushNotificationConfig", "historyLength"].every((k) => conf[k] === undefined) &&
    conf.returnImmediately !== true
  )
    delete x.configuration;
  if (family === "AgentCard") normaliseCard1_0(x, dialect);
  return x;
}

function normaliseCard1_0(c: J, dialect: "rpc" | "pb"): void {
  delete c.signatures; // L9
  if (dialect === "pb") delete c.iconUrl; // L11
  // L2: only 0.x interfaces; L1: no tenant; L18: one Major.Minor for all; main binding defaults to JSONRPC; no repeats.
  const legacy = (c.supportedInterfaces as J[]).filter((i) => LEGACY.test(typeof i.protocolVersion === "string" ? i.protocolVersion : ""));
  const [main] = legacy;
  const version = majorMinor(typeof main?.protocolVersion === "string" && main.protocolVersion ? main.protocolVersion : "0.3");
  if (main && !main.protocolBinding) main.protocolBinding = "JSONRPC";
  const seen = new Set<string>();
  c.supportedInterfaces = legacy
    .map((i) => ({ url: i.url, protocolBinding: i.protocolBinding ?? "", protocolVersion: version }))
    .filter((i) => {
      const k = JSON.stringify([i.protocolBinding, i.url]);
      return seen.has(k) ? false : (seen.add(k), true);
    });
  // L8: deviceCode and pkceRequired; D03-PB cannot show a scheme left without a flow.
  const schemes = (c.securitySchemes ?? {}) as Record<string, J>;
  for (const [k, s] of Object.entries(schemes)) {
    const o = s.oauth2SecurityScheme as J | undefined;
    if (!o) continue;
    const flows = (o.flows ?? {}) as J;
    delete flows.deviceCode;
    if (isObj(flows.authorizationCode)) delete flows.authorizationCode.pkceRequired;
    if (Object.keys(flows).length === 0) delete schemes[k];
  }
}

/** 0.3 JSON-RPC → 1.0 → 0.3 JSON-RPC: what the documented losses take away from the original. */
export function normaliseRpc(family: string, value: unknown): unknown {
  const x = clone(value) as J;
  const sink = new LossLog("to-1.0");
  const walk = (o: unknown): void => {
    if (Array.isArray(o)) return o.forEach(walk);
    if (!isObj(o)) return;
    // L19: timestamps as UTC `Z`, at most 9 fractional digits.
    if (typeof o.state === "string" && typeof o.timestamp === "string") o.timestamp = timestampTo1_0(o.timestamp, "", sink);
    // L15: one push authentication scheme.
    if (Array.isArray(o.schemes) && o.schemes.every((s) => typeof s === "string") && "schemes" in o && !("type" in o))
      o.schemes = o.schemes.slice(0, 1);
    for (const [k, v] of Object.entries(o)) if (k !== "metadata" && k !== "data" && k !== "params") walk(v);
  };
  walk(x);
  if (family === "SendMessageRequest") {
    // blocking absent means blocking; downgrades always write it.
    const c = (x.configuration ?? {}) as J;
    if (c.blocking === undefined) c.blocking = true;
    x.configuration = c;
  }
  if (family === "AgentCard") {
    x.protocolVersion = `${majorMinor(String(x.protocolVersion))}.0`; // L18 (and back as Major.Minor.0)
    if (!x.preferredTransport) x.preferredTransport = "JSONRPC";
    const seen = new Set<string>();
    const all = [{ url: x.url, transport: x.preferredTransport }, ...((x.additionalInterfaces as J[]) ?? [])].filter((i) => {
      const k = JSON.stringify([i.transport, i.url]);
      return seen.has(k) ? false : (seen.add(k), true);
    });
    if (all.length > 1) x.additionalInterfaces = all.map((i) => ({ url: i.url, transport: i.transport }));
    else delete x.additionalInterfaces;
    delete x.signatures; // L9
    delete (x.capabilities as J).stateTransitionHistory; // L14
    const schemes = (x.securitySchemes ?? {}) as Record<string, J>;
    for (const [name, s] of Object.entries(schemes)) {
      if (s.type !== "oauth2") continue; // L16: one flow, by preference; none → scheme not shown
      const flows = s.flows as J;
      const keep = ["authorizationCode", "clientCredentials", "password", "implicit"].find((k) => flows[k] !== undefined);
      if (keep) s.flows = { [keep]: flows[keep] };
      else delete schemes[name];
    }
  }
  return x;
}

// ---- the families -------------------------------------------------------------------------------------

export interface Family {
  name: string;
  /** One run: throws (via expect) when the property fails. */
  property: fc.IProperty<[unknown]>;
}

type Check = (a: unknown, b: unknown, what: string) => void;

function family1_0<V>(
  name: string,
  arb: fc.Arbitrary<unknown>,
  canonName: string,
  down: (v: V) => Translated<unknown>,
  up: (v: unknown) => Translated<unknown>,
  dialect: "rpc" | "pb",
  eq: Check,
): Family {
  return {
    name: `${name} 1.0 → ${dialect === "rpc" ? "D03-RPC" : "D03-PB"} → 1.0`,
    property: fc.property(arb, (v) => {
      const back = up(down(v as V).value).value;
      eq(canon1_0(canonName, back), canon1_0(canonName, normalise1_0(name, v, dialect)), name);
    }),
  };
}

function familyRpc<V>(
  name: string,
  arb: fc.Arbitrary<unknown>,
  up: (v: V) => Translated<unknown>,
  down: (v: unknown, orig: V) => Translated<unknown>,
  eq: Check,
): Family {
  return {
    name: `${name} D03-RPC → 1.0 → D03-RPC`,
    property: fc.property(arb, (v) => {
      const back = down(up(v as V).value, v as V).value;
      eq(back, normaliseRpc(name, v), name);
    }),
  };
}

function familyPb<V>(
  name: string,
  arb: fc.Arbitrary<unknown>,
  canonName: string,
  up: (v: V) => Translated<unknown>,
  down: (v: unknown, orig: V) => Translated<unknown>,
  eq: Check,
): Family {
  return {
    name: `${name} D03-PB → 1.0 → D03-PB`,
    property: fc.property(arb, (v) => {
      const back = down(up(v as V).value, v as V).value;
      eq(canonPb(canonName, back), canonPb(canonName, v), name);
    }),
  };
}

const finalOfRpc = (o: unknown) => (isObj(o) && o.kind === "status-update" ? o.final === true : false);
const finalOfPb = (o: unknown) => (isObj(o) && isObj(o.statusUpdate) ? o.statusUpdate.final === true : false);
const a1 = <T>(name: string, arb: SchemaArbitraries) => arb.of<T>(name);

export function families(eq: Check): Family[] {
  const any = (f: unknown) => f as (v: unknown) => Translated<unknown>;
  return [
    // 1.0 → D03-RPC → 1.0
    family1_0("Task", a1("Task", v1ForRpc), "Task", rpc.downgradeTask, any(rpc.upgradeTask), "rpc", eq),
    family1_0("Message", a1("Message", v1ForRpc), "Message", rpc.downgradeMessage, any(rpc.upgradeMessage), "rpc", eq),
    family1_0("Part", a1("Part", v1ForRpc), "Part", rpc.downgradePart, any(rpc.upgradePart), "rpc", eq),
    family1_0("Artifact", a1("Artifact", v1ForRpc), "Artifact", rpc.downgradeArtifact, any(rpc.upgradeArtifact), "rpc", eq),
    family1_0(
      "StatusUpdate",
      a1("TaskStatusUpdateEvent", v1ForRpc),
      "TaskStatusUpdateEvent",
      (v: v1_0.TaskStatusUpdateEventJson) => rpc.downgradeStatusUpdate(v, true),
      any(rpc.upgradeStatusUpdate),
      "rpc",
      eq,
    ),
    family1_0(
      "ArtifactUpdate",
      a1("TaskArtifactUpdateEvent", v1ForRpc),
      "TaskArtifactUpdateEvent",
      rpc.downgradeArtifactUpdate,
      any(rpc.upgradeArtifactUpdate),
      "rpc",
      eq,
    ),
    family1_0(
      "StreamResponse",
      a1("StreamResponse", v1ForRpc),
      "StreamResponse",
      (v: v1_0.StreamResponseJson) => rpc.downgradeStreamResponse(v, { final: false }),
      any(rpc.upgradeStreamResponse),
      "rpc",
      eq,
    ),
    family1_0(
      "SendMessageRequest",
      a1("SendMessageRequest", v1ForRpc),
      "SendMessageRequest",
      rpc.downgradeSendMessageRequest,
      any(rpc.upgradeSendMessageRequest),
      "rpc",
      eq,
    ),
    family1_0(
      "SendMessageResponse",
      a1("SendMessageResponse", v1ForRpc),
      "SendMessageResponse",
      rpc.downgradeSendMessageResponse,
      any(rpc.upgradeSendMessageResponse),
      "rpc",
      eq,
    ),
    family1_0(
      "PushConfig",
      a1("TaskPushNotificationConfig", v1ForRpc),
      "TaskPushNotificationConfig",
      rpc.downgradePushConfig,
      any(rpc.upgradePushConfig),
      "rpc",
      eq,
    ),
    family1_0(
      "AgentCard",
      a1<v1_0.AgentCardJson>("AgentCard", v1ForRpc).map(withLegacyInterface),
      "AgentCard",
      rpc.downgradeAgentCard,
      any(rpc.upgradeAgentCard),
      "rpc",
      eq,
    ),
    // D03-RPC → 1.0 → D03-RPC
    familyRpc("Task", a1("Task", v3Rpc), rpc.upgradeTask, any(rpc.downgradeTask), eq),
    familyRpc("Message", a1("Message", v3Rpc), rpc.upgradeMessage, any(rpc.downgradeMessage), eq),
    familyRpc("Part", a1("Part", v3Rpc), rpc.upgradePart, any(rpc.downgradePart), eq),
    familyRpc("Artifact", a1("Artifact", v3Rpc), rpc.upgradeArtifact, any(rpc.downgradeArtifact), eq),
    familyRpc(
      "StatusUpdate",
      a1("TaskStatusUpdateEvent", v3Rpc),
      rpc.upgradeStatusUpdate,
      (v, o: v0_3.TaskStatusUpdateEvent) => rpc.downgradeStatusUpdate(v as v1_0.TaskStatusUpdateEventJson, o.final),
      eq,
    ),
    familyRpc("ArtifactUpdate", a1("TaskArtifactUpdateEvent", v3Rpc), rpc.upgradeArtifactUpdate, any(rpc.downgradeArtifactUpdate), eq),
    familyRpc(
      "StreamResponse",
      a1("SendStreamingMessageSuccessResponse", v3Rpc).map((r) => (r as J).result as rpc.StreamResult0_3),
      rpc.upgradeStreamResponse,
      (v, o) => rpc.downgradeStreamResponse(v as v1_0.StreamResponseJson, { final: finalOfRpc(o) }),
      eq,
    ),
    familyRpc(
      "SendMessageRequest",
      a1("MessageSendParams", v3Rpc),
      rpc.upgradeSendMessageRequest,
      any(rpc.downgradeSendMessageRequest),
      eq,
    ),
    familyRpc("PushConfig", a1("TaskPushNotificationConfig", v3Rpc), rpc.upgradePushConfig, any(rpc.downgradePushConfig), eq),
    familyRpc("AgentCard", a1("AgentCard", v3Rpc), rpc.upgradeAgentCard, any(rpc.downgradeAgentCard), eq),
    // 1.0 → D03-PB → 1.0
    family1_0("Task", a1("Task", v1ForPb), "Task", rest.downgradeTask, any(rest.upgradeTask), "pb", eq),
    family1_0("Message", a1("Message", v1ForPb), "Message", rest.downgradeMessage, any(rest.upgradeMessage), "pb", eq),
    family1_0(
      "StreamResponse",
      a1("StreamResponse", v1ForPb),
      "StreamResponse",
      (v: v1_0.StreamResponseJson) => rest.downgradeStreamResponse(v, { final: true }),
      any(rest.upgradeStreamResponse),
      "pb",
      eq,
    ),
    family1_0(
      "SendMessageRequest",
      a1("SendMessageRequest", v1ForPb),
      "SendMessageRequest",
      rest.downgradeSendMessageRequest,
      any(rest.upgradeSendMessageRequest),
      "pb",
      eq,
    ),
    family1_0(
      "AgentCard",
      a1<v1_0.AgentCardJson>("AgentCard", v1ForPb).map(withLegacyInterface),
      "AgentCard",
      rest.downgradeAgentCard,
      any(rest.upgradeAgentCard),
      "pb",
      eq,
    ),
    // D03-PB → 1.0 → D03-PB
    familyPb("Task", a1("Task", v3Pb), "Task", rest.upgradeTask, any(rest.downgradeTask), eq),
    familyPb("Message", a1("Message", v3Pb), "Message", rest.upgradeMessage, any(rest.downgradeMessage), eq),
    familyPb(
      "StreamResponse",
      a1("StreamResponse", v3Pb),
      "StreamResponse",
      rest.upgradeStreamResponse,
      (v, o) => rest.downgradeStreamResponse(v as v1_0.StreamResponseJson, { final: finalOfPb(o) }),
      eq,
    ),
  ];
}

/** Both toolkit part keys are reserved: a generated metadata map never uses them (documented in LOSSY.md). */
export const RESERVED_PART_KEYS = [PART_EXTRAS_KEY, DATA_COMPAT_KEY];
