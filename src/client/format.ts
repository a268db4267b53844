// Human-readable rendering of A2A 1.0 values, for the command line.
import { toJson as valueToJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import * as v1_0 from "../../generated/v1_0/index.js";
import { encode } from "../runtime/protojson.js";
import { describeSecurity } from "./auth.js";
import type { Target } from "./wire.js";

/** TASK_STATE_INPUT_REQUIRED → "input-required". */
export function stateName(state: v1_0.TaskState | undefined): string {
  if (state === undefined) return "unknown";
  return (v1_0.TaskState[state] ?? String(state)).toLowerCase().replace(/_/g, "-");
}

export function partText(p: v1_0.Part): string {
  switch (p.content.case) {
    case "text":
      return p.content.value;
    case "data":
      // The JSON the part carries, not the google.protobuf.Value message that holds it.
      return JSON.stringify(valueToJson(ValueSchema, p.content.value));
    case "url":
      return `[file ${p.filename || ""}${p.filename ? " " : ""}${p.content.value}${p.mediaType ? ` (${p.mediaType})` : ""}]`;
    case "raw":
      return `[${p.content.value.length} bytes${p.filename ? ` ${p.filename}` : ""}${p.mediaType ? ` (${p.mediaType})` : ""}]`;
    default:
      return "[empty part]";
  }
}

/** The parts of a message or artifact for a reader: one part per line. */
export function partsText(parts: readonly v1_0.Part[]): string {
  return parts.map(partText).join("\n");
}

export function messageText(m: v1_0.Message | undefined): string {
  return m ? partsText(m.parts) : "";
}

function indent(text: string, by = "  "): string {
  return text
    .split("\n")
    .map((l) => by + l)
    .join("\n");
}

export function formatMessage(m: v1_0.Message): string {
  const who = m.role === v1_0.Role.AGENT ? "agent" : m.role === v1_0.Role.USER ? "user" : "message";
  const ids = [m.taskId && `task ${m.taskId}`, m.contextId && `context ${m.contextId}`].filter(Boolean).join(", ");
  return `${who}${ids ? ` (${ids})` : ""}:\n${indent(messageText(m))}`;
}

export function formatArtifact(a: v1_0.Artifact): string {
  const title = a.name || a.artifactId;
  return `artifact ${title}${a.description ? ` — ${a.description}` : ""}:\n${indent(partsText(a.parts))}`;
}

export function formatTask(t: v1_0.Task): string {
  const lines = [`task ${t.id}`, `  context: ${t.contextId}`, `  state:   ${stateName(t.status?.state)}`];
  const said = messageText(t.status?.message);
  if (said) lines.push(`  agent:   ${said}`);
  if (t.status?.timestamp)
    lines.push(
      `  updated: ${new Date(Number(t.status.timestamp.seconds) * 1000 + Math.floor(t.status.timestamp.nanos / 1e6)).toISOString()}`,
    );
  for (const a of t.artifacts) lines.push(indent(formatArtifact(a)));
  return lines.join("\n");
}

export function formatCard(card: v1_0.AgentCard, chosen?: Target): string {
  const c = card.capabilities;
  const lines = [`${card.name} (version ${card.version})`, indent(card.description)];
  if (card.provider) lines.push(`  provider: ${card.provider.organization}${card.provider.url ? ` <${card.provider.url}>` : ""}`);
  lines.push("interfaces (agent's order):");
  for (const i of card.supportedInterfaces) {
    const mark =
      chosen && chosen.url === i.url && chosen.binding === normalise(i.protocolBinding) && i.protocolVersion.startsWith(chosen.version)
        ? "*"
        : " ";
    lines.push(
      `  ${mark} ${i.protocolBinding.padEnd(9)} ${i.protocolVersion.padEnd(5)} ${i.url}${i.tenant ? ` (tenant ${i.tenant})` : ""}`,
    );
  }
  if (chosen) lines.push(`  (* = the interface this client would use)`);
  lines.push(
    `capabilities: streaming ${yn(c?.streaming)}, push notifications ${yn(c?.pushNotifications)}, extended card ${yn(c?.extendedAgentCard)}`,
  );
  for (const e of c?.extensions ?? []) lines.push(`  extension ${e.uri}${e.required ? " (required)" : ""}`);
  lines.push(`input: ${card.defaultInputModes.join(", ") || "-"}   output: ${card.defaultOutputModes.join(", ") || "-"}`);
  const sec = describeSecurity(card);
  if (sec.length) lines.push("security:", ...sec.map((s) => `  ${s}`));
  if (card.skills.length)
    lines.push("skills:", ...card.skills.map((s) => `  ${s.id}: ${s.name}${s.description ? ` — ${s.description}` : ""}`));
  if (card.signatures.length) lines.push(`signatures: ${card.signatures.length} (not verified by this command)`);
  return lines.join("\n");
}

function normalise(b: string): string {
  const u = b.toUpperCase();
  return u === "JSON-RPC" ? "JSONRPC" : u;
}

function yn(b: boolean | undefined): string {
  return b ? "yes" : "no";
}

/** ProtoJSON of a 1.0 value, for --json output. */
export function toJson(schema: Parameters<typeof encode>[0], value: Parameters<typeof encode>[1]): JsonValue {
  return encode(schema, value as never, { alwaysEmit: v1_0.alwaysEmit });
}

/**
 * Renders stream events as they arrive: artifact chunks are printed inline (appended chunks
 * continue the same line), status changes on their own line.
 */
export class StreamPrinter {
  private open = false; // an artifact line is being written
  constructor(private readonly write: (s: string) => void) {}

  event(ev: v1_0.StreamResponse): void {
    switch (ev.payload.case) {
      case "task": {
        const t = ev.payload.value;
        this.line(`[${stateName(t.status?.state)}] task ${t.id} (context ${t.contextId})${suffix(messageText(t.status?.message))}`);
        break;
      }
      case "statusUpdate": {
        const s = ev.payload.value;
        this.line(`[${stateName(s.status?.state)}]${suffix(messageText(s.status?.message))}`);
        break;
      }
      case "artifactUpdate": {
        const a = ev.payload.value;
        // Chunks of one part continue a line; a data or file part is a line of its own.
        const text = partsText(a.artifact?.parts ?? []);
        if (!a.append || !this.open) {
          this.end();
          this.write(`${a.artifact?.name || a.artifact?.artifactId || "artifact"}: `);
        }
        this.write(text);
        this.open = true;
        if (a.lastChunk) this.end();
        break;
      }
      case "message":
        this.line(formatMessage(ev.payload.value));
        break;
    }
  }

  end(): void {
    if (this.open) this.write("\n");
    this.open = false;
  }

  private line(s: string): void {
    this.end();
    this.write(`${s}\n`);
  }
}

function suffix(s: string): string {
  return s ? ` ${s}` : "";
}
