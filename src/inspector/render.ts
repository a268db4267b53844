// Short texts the inspector shows about an answer or an error: plain strings, which the page puts
// in the DOM as text (textContent), never as markup.
import type { Message } from "@bufbuild/protobuf";

/** One line about an answer: the kind of object and, for a task, its state. */
export function textOf(m: Message & { payload?: { case?: string; value?: unknown }; status?: { state?: number } }): string {
  const inner = (m.payload?.value ?? m) as { $typeName?: string; id?: string; status?: { state?: number } };
  const kind = (inner.$typeName ?? m.$typeName).split(".").pop();
  return inner.status ? `${kind} ${inner.id ?? ""} state ${inner.status.state ?? "?"}` : `${kind}`;
}

/** An error as one line: its class, A2A error name or transport kind, and message. */
export function errorSummary(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const name = (e as { a2aName?: string; kind?: string }).a2aName ?? (e as { kind?: string }).kind;
  return `${e.name}${name ? ` (${name})` : ""}: ${e.message}`;
}
