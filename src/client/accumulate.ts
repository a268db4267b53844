// Builds the current Task from stream events (A2A 1.0 §4.2.2; a2a-wire.md C-15): a Task event
// replaces the state, a status update sets the status, an artifact update adds an artifact or,
// with `append`, extends the artifact with the same `artifactId`.
import { clone, create } from "@bufbuild/protobuf";
import * as v1_0 from "../../generated/v1_0/index.js";

/** Returns the task after `ev` (a new object; `task` is not modified). Messages leave it as it was. */
export function applyStreamEvent(task: v1_0.Task | undefined, ev: v1_0.StreamResponse): v1_0.Task | undefined {
  switch (ev.payload.case) {
    case "task":
      return clone(v1_0.TaskSchema, ev.payload.value);
    case "statusUpdate": {
      const u = ev.payload.value;
      const next = task ? clone(v1_0.TaskSchema, task) : create(v1_0.TaskSchema, { id: u.taskId, contextId: u.contextId });
      if (u.status) next.status = clone(v1_0.TaskStatusSchema, u.status);
      return next;
    }
    case "artifactUpdate": {
      const u = ev.payload.value;
      const next = task ? clone(v1_0.TaskSchema, task) : create(v1_0.TaskSchema, { id: u.taskId, contextId: u.contextId });
      if (!u.artifact) return next;
      const incoming = clone(v1_0.ArtifactSchema, u.artifact);
      const i = next.artifacts.findIndex((a) => a.artifactId === incoming.artifactId);
      const have = next.artifacts[i];
      if (!have) next.artifacts.push(incoming);
      else if (u.append) {
        have.parts.push(...incoming.parts);
        if (incoming.metadata) have.metadata = { ...have.metadata, ...incoming.metadata };
        if (incoming.name) have.name = incoming.name;
        if (incoming.description) have.description = incoming.description;
      } else next.artifacts[i] = incoming;
      return next;
    }
    default:
      return task;
  }
}

/** The concatenated text of an artifact's text parts. */
export function artifactText(a: v1_0.Artifact): string {
  return a.parts.map((p) => (p.content.case === "text" ? p.content.value : "")).join("");
}
