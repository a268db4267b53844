// Stream members of issue 12 (sameValue, nonDecreasing, endsAfter + trailer, first's captures
// seen by later matchers) and step conditions, checked on hand-made responses; a stream's events
// captured and compared with another stream's by a check step, against a loopback server.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCase, type CaseExchange, type CaseStep, type StreamExpect } from "../../src/compliance/cases.js";
import type { WireResponse } from "../../src/compliance/http.js";
import { Scope } from "../../src/compliance/match.js";
import { compareResponse, runCase, unmetCondition } from "../../src/compliance/runner.js";
import { restCase, restDiscovery } from "../support/rest-case.js";
import { listenHttp } from "../support/servers.js";

const stream = (events: unknown[]): WireResponse => ({
  status: 200,
  headers: { "content-type": "text/event-stream" },
  events: events.map((json) => ({ data: JSON.stringify(json), json })),
  closed: true,
});
const check = (s: StreamExpect, events: unknown[], scope = new Scope(new Map())) =>
  compareResponse({ stream: s }, stream(events), scope).map((d) => `${d.path} ${d.message}`);

const task = (id: string, state = "TASK_STATE_SUBMITTED", timestamp?: string) => ({
  result: { task: { id, status: { state, timestamp } } },
});
const update = (taskId: string, state: string, timestamp?: string) => ({
  result: { statusUpdate: { taskId, status: { state, timestamp } } },
});
const IDS = ["/result/task/id", "/result/statusUpdate/taskId"];
const TIMES = ["/result/task/status/timestamp", "/result/statusUpdate/status/timestamp"];
const TERMINAL = { result: { statusUpdate: { status: { state: { $oneOf: ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED"] } } } } };

describe("stream: sameValue", () => {
  it("passes when every event naming a task names the same one; events without any pointer are ignored", () => {
    expect(check({ sameValue: IDS }, [task("t1"), { result: { artifactUpdate: {} } }, update("t1", "TASK_STATE_COMPLETED")])).toEqual([]);
  });
  it("fails at the event that names another task", () => {
    expect(check({ sameValue: IDS }, [task("t1"), update("t2", "TASK_STATE_WORKING"), update("t1", "TASK_STATE_COMPLETED")])).toEqual([
      '/events/1/result/statusUpdate/taskId expected the same value as event 0 at /result/task/id ("t1"), got "t2"',
    ]);
  });
});

describe("stream: nonDecreasing", () => {
  it("compares timestamps as instants (offsets included) and skips events without one", () => {
    const events = [
      task("t", "TASK_STATE_SUBMITTED", "2026-01-01T10:00:00Z"),
      update("t", "TASK_STATE_WORKING"),
      update("t", "TASK_STATE_COMPLETED", "2026-01-01T11:30:00+01:00"),
    ];
    expect(check({ nonDecreasing: TIMES }, events)).toEqual([]);
  });
  it("fails where a value goes backwards, and on a value that is no timestamp or number", () => {
    const back = [
      task("t", "TASK_STATE_SUBMITTED", "2026-01-01T10:00:01Z"),
      update("t", "TASK_STATE_COMPLETED", "2026-01-01T10:00:00.500Z"),
    ];
    expect(check({ nonDecreasing: TIMES }, back)).toEqual([
      '/events/1/result/statusUpdate/status/timestamp goes backwards: "2026-01-01T10:00:00.500Z" after "2026-01-01T10:00:01Z" at event 0/result/task/status/timestamp',
    ]);
    expect(check({ nonDecreasing: ["/n"] }, [{ n: 1 }, { n: 2 }, { n: 2 }])).toEqual([]);
    expect(check({ nonDecreasing: ["/n"] }, [{ n: 2 }, { n: 1 }])).toHaveLength(1);
    expect(check({ nonDecreasing: ["/n"] }, [{ n: true }])).toEqual(["/events/0/n not a timestamp or number: true"]);
  });
});

describe("stream: endsAfter and trailer", () => {
  const done = update("t", "TASK_STATE_COMPLETED");
  it("passes a stream that ends at the first matching event, or with one trailer that matches", () => {
    expect(check({ endsAfter: TERMINAL }, [task("t"), done])).toEqual([]);
    expect(
      check({ endsAfter: TERMINAL, trailer: { result: { task: { status: { state: "TASK_STATE_COMPLETED" } } } } }, [
        task("t"),
        done,
        task("t", "TASK_STATE_COMPLETED"),
      ]),
    ).toEqual([]);
  });
  it("fails a stream that goes on, a trailer that does not match, two trailers, and no matching event", () => {
    expect(check({ endsAfter: TERMINAL }, [task("t"), done, task("t", "TASK_STATE_COMPLETED")])).toEqual([
      "/events/2 the stream goes on after event 1 (which matched endsAfter) with 1 more event(s)",
    ]);
    const trailer = { result: { task: { status: { state: "TASK_STATE_COMPLETED" } } } };
    expect(check({ endsAfter: TERMINAL, trailer }, [task("t"), done, task("t", "TASK_STATE_WORKING")])).toEqual([
      '/events/2/result/task/status/state expected "TASK_STATE_COMPLETED", got "TASK_STATE_WORKING"',
    ]);
    expect(
      check({ endsAfter: TERMINAL, trailer }, [done, task("t", "TASK_STATE_COMPLETED"), task("t", "TASK_STATE_COMPLETED")])[0],
    ).toMatch(/^\/events\/1 the stream goes on after event 0 .* with 2 more event\(s\); at most one trailer may follow$/);
    expect(check({ endsAfter: TERMINAL }, [task("t"), update("t", "TASK_STATE_WORKING")])).toEqual([
      `/events no event matched endsAfter ${JSON.stringify(TERMINAL)}`,
    ]);
    expect(check({ endsAfter: TERMINAL }, [])).toEqual(["/events the stream carried no events"]);
  });
});

describe("stream: captures of first reach the later matchers", () => {
  it("each, last and trailer see the id captured by first", () => {
    const s: StreamExpect = {
      first: { result: { task: { id: { $capture: "taskId" } } } },
      each: { $oneOf: [{ result: { task: { id: "{{taskId}}" } } }, { result: { statusUpdate: { taskId: "{{taskId}}" } } }] },
      endsAfter: TERMINAL,
      trailer: { result: { task: { id: "{{taskId}}" } } },
    };
    const scope = new Scope(new Map());
    expect(check(s, [task("t1"), update("t1", "TASK_STATE_COMPLETED"), task("t1", "TASK_STATE_COMPLETED")], scope)).toEqual([]);
    expect(scope.staged.get("taskId")).toBe("t1");
    expect(check(s, [task("t1"), update("t1", "TASK_STATE_COMPLETED"), task("t2", "TASK_STATE_COMPLETED")])).toEqual([
      '/events/2/result/task/id expected "t1" (from {{taskId}}), got "t2" (closest of 2 alternatives)',
      '/events/2/result/task/id expected "t1" (from {{taskId}}), got "t2"',
    ]);
  });
});

describe("step conditions", () => {
  const vars = new Map<string, unknown>([
    ["taskId", "t1"],
    ["state", "TASK_STATE_INPUT_REQUIRED"],
  ]);
  it("captured, notCaptured, capture+matches, and all keys of one object", () => {
    expect(unmetCondition({ captured: "taskId" }, vars)).toBeUndefined();
    expect(unmetCondition({ captured: "messageId" }, vars)).toBe('when: "messageId" was not captured');
    expect(unmetCondition({ notCaptured: "messageId" }, vars)).toBeUndefined();
    expect(unmetCondition({ notCaptured: "taskId" }, vars)).toBe('when: "taskId" was captured');
    expect(unmetCondition({ capture: "state", matches: { $regex: "INPUT_REQUIRED$" } }, vars)).toBeUndefined();
    expect(unmetCondition({ capture: "state", matches: "TASK_STATE_COMPLETED" }, vars)).toBe(
      'when: "state" is "TASK_STATE_INPUT_REQUIRED", not "TASK_STATE_COMPLETED"',
    );
    expect(unmetCondition({ capture: "nope", matches: {} }, vars)).toBe('when: "nope" was not captured');
    expect(unmetCondition({ captured: "taskId", notCaptured: "state" }, vars)).toBe('when: "state" was captured');
  });
});

describe("stream capture and check steps: two streams of one task compared", () => {
  // GET /same: three events; /short: the same without the middle one; /refused: 404. Each event
  // carries its own JSON-RPC id (the path), so only the value at `at` can be compared.
  const events = (id: string) =>
    [task("t1", "TASK_STATE_WORKING"), { result: { artifactUpdate: { taskId: "t1" } } }, update("t1", "TASK_STATE_COMPLETED")].map((e) => ({
      jsonrpc: "2.0",
      id,
      ...e,
    }));
  let server: Server;
  let url = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/refused") return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "text/event-stream" });
      const sent = events(req.url ?? "").filter((_e, i) => req.url !== "/short" || i !== 1);
      res.end(sent.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""));
    });
    url = await listenHttp(server);
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const sub = (name: string, path: string): CaseExchange => ({
    name,
    request: { method: "GET", path },
    expect: { status: 200, stream: { first: { result: { task: { id: "t1" } } }, capture: { name, at: "/result" } } },
  });
  const citation = [{ version: "1.0.1" as const, section: "3.5.2", quote: "Each stream MUST receive the same events in the same order" }];
  const twoStreams = (second: string): CaseStep[] => [
    { name: "subscribe twice", level: "MAY", spec: citation, parallel: [sub("sub1", "/same"), sub("sub2", second)] },
    { name: "same events", level: "MUST", spec: citation, when: { captured: "sub2" }, check: { capture: "sub2", matches: "{{sub1}}" } },
  ];
  const run = (second: string) => runCase(restCase(twoStreams(second)), restDiscovery(url));

  it("passes when both streams carry the same events, whatever their envelopes", async () => {
    const r = await run("/same");
    expect(r.steps.map((s) => `${s.name} ${s.status}`)).toEqual([
      "subscribe twice [sub1] pass",
      "subscribe twice [sub2] pass",
      "same events pass",
    ]);
    expect(r.status).toBe("pass");
    expect(r.steps[2]?.checked).toEqual(events("").map((e) => e.result));
  });

  it("fails at MUST when one stream misses an event", async () => {
    const r = await run("/short");
    expect(r).toMatchObject({ status: "fail", failureLevel: "MUST" });
    expect(r.reason).toBe(
      'same events: /sub2/1/artifactUpdate expected {"taskId":"t1"} (from {{sub1}} at /1/artifactUpdate), got (absent)',
    );
  });

  it("a second stream not served is a MAY not offered, and the comparison does not apply", async () => {
    const r = await run("/refused");
    expect(r.steps.map((s) => `${s.name} ${s.status}`)).toEqual([
      "subscribe twice [sub1] pass",
      "subscribe twice [sub2] fail",
      "same events not applicable",
    ]);
    expect(r.status).toBe("not-offered");
    // Without the condition, the check of a list the agent never gave is untested, not failed.
    const [serve, compare] = twoStreams("/refused");
    const { when: _when, ...unconditional } = compare!;
    const u = await runCase(restCase([serve!, unconditional]), restDiscovery(url));
    expect(u.steps[2]).toMatchObject({ status: "inconclusive", reason: "the agent's earlier answers gave no sub2, which this step needs" });
    expect(u.status).toBe("not-offered");
  });

  it("the loader takes a check step only on a variable an earlier step captures", () => {
    const parse = (steps: unknown[]) =>
      parseCase("v1_0/rest/x/y", "f.json", {
        title: "t",
        requirements: ["S-39"],
        level: "MUST",
        version: "1.0",
        binding: "rest",
        agent: "any",
        steps,
      }).problems;
    expect(parse(twoStreams("/same"))).toEqual([]);
    expect(parse(twoStreams("/same").slice(1))).toEqual([
      'v1_0/rest/x/y: /steps/0/when/captured: no earlier step captures "sub2" (captured so far: none)',
      'v1_0/rest/x/y: /steps/0/check/capture: no earlier step captures "sub2"',
    ]);
  });
});
