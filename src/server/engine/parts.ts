// Convenience constructors for 1.0 Parts, so agents can answer with plain strings and objects
// instead of building protobuf-es messages by hand.
import { create, fromJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import * as v1_0 from "../../../generated/v1_0/index.js";

interface PartCommon {
  mediaType?: string;
  filename?: string;
  metadata?: JsonObject;
}

/**
 * What an agent may give wherever the runtime expects parts:
 * - a string (a text part),
 * - `{ text }`, `{ url }`, `{ raw }` (bytes; a string is taken as UTF-8 text) or `{ data }` (any JSON),
 *   each with optional `mediaType`, `filename`, `metadata`,
 * - or a ready-made `v1_0.Part`.
 */
export type PartInit =
  | string
  | v1_0.Part
  | (PartCommon & { text: string })
  | (PartCommon & { url: string })
  | (PartCommon & { raw: Uint8Array | string })
  | (PartCommon & { data: JsonValue });

function isPart(p: unknown): p is v1_0.Part {
  return typeof p === "object" && p !== null && (p as { $typeName?: string }).$typeName === "lf.a2a.v1.Part";
}

export function toPart(init: PartInit): v1_0.Part {
  if (typeof init === "string") return create(v1_0.PartSchema, { content: { case: "text", value: init } });
  if (isPart(init)) return init;
  const common = {
    mediaType: init.mediaType ?? "",
    filename: init.filename ?? "",
    ...(init.metadata ? { metadata: init.metadata } : {}),
  };
  if ("text" in init) return create(v1_0.PartSchema, { ...common, content: { case: "text", value: init.text } });
  if ("url" in init) return create(v1_0.PartSchema, { ...common, content: { case: "url", value: init.url } });
  if ("raw" in init) {
    const bytes = typeof init.raw === "string" ? new TextEncoder().encode(init.raw) : init.raw;
    return create(v1_0.PartSchema, { ...common, content: { case: "raw", value: bytes } });
  }
  return create(v1_0.PartSchema, { ...common, content: { case: "data", value: fromJson(ValueSchema, init.data) } });
}

export function toParts(init: PartInit | readonly PartInit[] | undefined): v1_0.Part[] {
  if (init === undefined) return [];
  return (Array.isArray(init) ? init : [init as PartInit]).map(toPart);
}

/** The text of the first text part of a message ("" when there is none). */
export function firstText(message: v1_0.Message | undefined): string {
  for (const p of message?.parts ?? []) if (p.content.case === "text") return p.content.value;
  return "";
}

// Whether `modes` (exact media types, or wildcards such as text/* and the any-type one) cover
// `mediaType`; parameters and case are ignored.
export function coversMediaType(modes: readonly string[], mediaType: string): boolean {
  const bare = (t: string) => (t.split(";")[0] ?? "").trim().toLowerCase();
  const [type] = bare(mediaType).split("/");
  return modes.map(bare).some((m) => m === bare(mediaType) || m === "*/*" || m === `${type}/*`);
}

/**
 * The media types an agent's card says it reads: its defaultInputModes (text/plain when it declares
 * none, as on the published card, card.ts) and every skill's inputModes.
 */
export function acceptedInputModes(card: Pick<v1_0.AgentCardJson, "defaultInputModes" | "skills">): string[] {
  return [...(card.defaultInputModes ?? ["text/plain"]), ...(card.skills ?? []).flatMap((s) => s.inputModes ?? [])];
}
