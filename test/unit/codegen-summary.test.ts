// diffSummaries / formatChanges on hand-made API summaries: every kind of change and its verdict.
import { describe, expect, it } from "vitest";
import { diffSummaries, formatChanges, type ApiSummary, type Change } from "../../codegen/summary.js";

const base = (): ApiSummary => ({
  messages: {
    "p.Task": {
      id: { number: 1, type: "string", required: true },
      note: { number: 2, type: "string", required: false },
      history: { number: 3, type: "repeated p.Message", required: false },
    },
    "p.Message": { text: { number: 1, type: "string", required: false } },
  },
  enums: { "p.State": { STATE_UNSPECIFIED: 0, STATE_WORKING: 1, STATE_DONE: 2 } },
  methods: {
    GetTask: { jsonRpc: "GetTask", request: "GetTaskRequest", response: "Task", streaming: false, routes: ["GET /tasks/{id=*}"] },
  },
});

/** A member of a summary's table that the test goes on to change; base() has it. */
function member<T>(table: Record<string, T>, name: string): T {
  const m = table[name];
  if (!m) throw new Error(`base() has no ${name}`);
  return m;
}

const verdicts = (changes: Change[]) => changes.map((c) => `${c.kind}: ${c.what}`);

describe("diffSummaries", () => {
  it("no change, no lines", () => {
    expect(diffSummaries(base(), base())).toEqual([]);
    expect(formatChanges("A2A 1.0", [])).toBe("A2A 1.0: no API changes");
  });

  it("field number, type and REQUIRED changes", () => {
    const after = base();
    const task = member(after.messages, "p.Task");
    task.note = { number: 7, type: "int32", required: false };
    member(task, "history").required = true;
    member(task, "id").required = false;
    expect(verdicts(diffSummaries(base(), after))).toEqual([
      "breaking: field p.Task.history became REQUIRED",
      "additive: field p.Task.id is no longer REQUIRED",
      "breaking: field p.Task.note number changed #2 → #7",
      "breaking: field p.Task.note type changed string → int32",
    ]);
  });

  it("fields and messages added or removed", () => {
    const after = base();
    const task = member(after.messages, "p.Task");
    delete task.note;
    task.tags = { number: 4, type: "repeated string", required: false };
    task.owner = { number: 5, type: "string", required: true };
    delete after.messages["p.Message"];
    after.messages["p.Artifact"] = {};
    expect(verdicts(diffSummaries(base(), after))).toEqual([
      "additive: message p.Artifact added",
      "breaking: message p.Message removed",
      "breaking: field p.Task.note removed (was #2 string)",
      "breaking: field p.Task.owner added (#5 string, REQUIRED)",
      "additive: field p.Task.tags added (#4 repeated string)",
    ]);
  });

  it("enum values: added is additive, removed or renumbered is breaking", () => {
    const after = base();
    after.enums["p.State"] = { STATE_UNSPECIFIED: 0, STATE_WORKING: 3, STATE_PAUSED: 9 };
    after.enums["p.Role"] = { ROLE_UNSPECIFIED: 0 };
    expect(verdicts(diffSummaries(base(), after))).toEqual([
      "additive: enum p.Role added",
      "breaking: enum value p.State.STATE_DONE removed",
      "additive: enum value p.State.STATE_PAUSED added (= 9)",
      "breaking: enum value p.State.STATE_WORKING renumbered 1 → 3",
    ]);
  });

  it("methods: routes added/removed, streaming/request/response changes, methods added/removed", () => {
    const after = base();
    after.methods.GetTask = { ...member(after.methods, "GetTask"), streaming: true, routes: ["GET /v2/tasks/{id=*}"] };
    after.methods.ListTasks = {
      jsonRpc: "ListTasks",
      request: "ListTasksRequest",
      response: "ListTasksResponse",
      streaming: false,
      routes: ["GET /tasks"],
    };
    expect(verdicts(diffSummaries(base(), after))).toEqual([
      "breaking: method GetTask streaming changed false → true",
      "additive: method GetTask route added: GET /v2/tasks/{id=*}",
      "breaking: method GetTask route removed: GET /tasks/{id=*}",
      "additive: method ListTasks added (GET /tasks)",
    ]);
    expect(verdicts(diffSummaries(after, base()))).toContain("breaking: method ListTasks removed");
  });

  it("0.3 JSON Schema definitions: properties, types and required", () => {
    const before: ApiSummary = {
      ...base(),
      jsonDefinitions: {
        Task: { properties: { id: "string", kind: 'const "task"', note: "string" }, required: ["id", "kind"] },
        Gone: { properties: {}, required: [] },
      },
    };
    const after: ApiSummary = {
      ...base(),
      jsonDefinitions: {
        Task: {
          properties: { id: "integer", kind: 'const "task"', note: "string", extra: "string", must: "string" },
          required: ["kind", "must", "note"],
        },
        New: { properties: {}, required: [] },
      },
    };
    expect(verdicts(diffSummaries(before, after))).toEqual([
      "breaking: definition Gone removed",
      "additive: definition New added",
      "additive: property Task.extra added (string)",
      "breaking: property Task.id type changed string → integer",
      "breaking: property Task.must added (string, required)",
      "breaking: property Task.note became required",
      "additive: property Task.id is no longer required",
    ]);
  });

  it("0.3 enums and unions: a new member is additive, a lost member is breaking, any other change is a type change", () => {
    const defs = (state: string, part: string, id: string): ApiSummary => ({
      ...base(),
      jsonDefinitions: {
        TaskState: { properties: { "(self)": state }, required: [] },
        Part: { properties: { "(self)": part }, required: [] },
        Task: { properties: { id }, required: [] },
      },
    });
    const before = defs('enum "working"|"completed"', "TextPart | FilePart", "string");
    const after = defs('enum "working"|"paused"', "TextPart | FilePart | DataPart", 'enum "a"');
    expect(verdicts(diffSummaries(before, after))).toEqual([
      "additive: definition Part union member added: DataPart",
      'breaking: property Task.id type changed string → enum "a"',
      'additive: definition TaskState enum member added: "paused"',
      'breaking: definition TaskState enum member removed: "completed"',
    ]);
    // Reordering members changes nothing.
    expect(diffSummaries(before, defs('enum "completed"|"working"', "FilePart | TextPart", "string"))).toEqual([]);
  });

  it("formatChanges: a count line, then one marked line per change", () => {
    const after = base();
    delete member(after.messages, "p.Task").note;
    member(after.enums, "p.State").STATE_PAUSED = 9;
    expect(formatChanges("A2A 1.0", diffSummaries(base(), after)).split("\n")).toEqual([
      "A2A 1.0: 2 change(s), 1 breaking",
      "  BREAKING  field p.Task.note removed (was #2 string)",
      "  additive  enum value p.State.STATE_PAUSED added (= 9)",
    ]);
  });
});
