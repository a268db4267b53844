// Faults in the shape of results: the 1.0 `task` / `message` wrapper of SendMessage, 0.3 results
// wrapped the 1.0 way, and ListTasks' nextPageToken.
import { A2A_PROTO, inner, onPayload, V03_DATA } from "./helpers.js";
import type { Rewrite } from "./types.js";

export const RESULT_FAULTS: readonly Rewrite[] = [
  {
    name: "list-tasks-next-page-token-absent",
    kind: "fault",
    description: 'ListTasks results leave out nextPageToken on the last page (where it must be "")',
    spec: [
      {
        version: "1.0.1",
        section: "3.1.4",
        quote: "Note on nextPageToken: The nextPageToken field MUST always be present in the response.",
      },
    ],
    applies: { versions: ["1.0"], operations: ["ListTasks"] },
    ...onPayload((p) => {
      if (p.nextPageToken !== "") return p;
      const { nextPageToken: _dropped, ...rest } = p;
      return rest;
    }),
  },
  {
    name: "v1-result-unwrapped",
    kind: "fault",
    description: "1.0 SendMessage results are the bare Task or Message, without the `task` / `message` member around it",
    spec: [
      {
        version: "1.0.1",
        section: "9.4.1",
        quote: '/* SendMessageResponse object, contains one of: * "task": { Task object } * "message": { Message object } */',
      },
      A2A_PROTO,
    ],
    applies: { versions: ["1.0"], operations: ["SendMessage"] },
    ...onPayload((p) => {
      const { key, obj } = inner(p);
      return key === "task" || key === "message" ? obj : p;
    }),
  },
  {
    name: "v03-result-wrapped",
    kind: "fault",
    description: "0.3 JSON-RPC Task results are wrapped the 1.0 way ({task: …}) without `kind`",
    spec: [V03_DATA],
    applies: { versions: ["0.3"], bindings: ["json-rpc"] },
    ...onPayload((p) => {
      if (p.kind !== "task") return p;
      const { kind: _dropped, ...task } = p;
      return { task };
    }),
  },
];
