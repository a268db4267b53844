// Agent turns that cases share (issue 27): an LLM agent's turn costs seconds and money, and many
// cases open with the same message and then only read what it made (get, list, history, subscribe
// to an ended task). Such cases send that first message once per (version, binding): each case
// judges the same answer against its own expectations, so a verdict never rests on another
// case's judgement, and an agent's answer that breaks a rule breaks it in every case that reads it.
// A case that changes the task after its first message (a further message, a cancel, a push
// configuration) sends its own, so no case sees a task another case changed. One that changes it
// only on some answers (a cancel of a task that asks for input, a message to an ended task) runs
// after every case that only reads the turn (runCases), and uses the shared task unless an earlier
// such case had a change accepted: a refused request changes nothing. So those whose changes the
// spec says are refused go first (expectsRefusal).
import type { Case, CaseExchange, CaseRequest, CaseStep, Version } from "./cases.js";
import { exchangesOf } from "./cases.js";
import { isPlainObject } from "./match.js";
import { sendsMessage } from "./pacing.js";
import type { WireRequest, WireResponse } from "./http.js";

/** What a shared first turn produced: the request as sent, the answer and what the runner did to get it. */
export interface SharedTurn {
  request: WireRequest;
  actual: WireResponse;
  notes: string[];
  chosen: Record<string, string>;
  /** The {{uuid:…}} values the request was rendered with: a case that shares the turn refers to the same ids. */
  uuids: [string, unknown][];
}

/** The run's shared turns by key (turnKey); runCases makes one per run. */
export type SharedTurns = Map<string, Promise<SharedTurn>>;

/** 1.0 operations, 0.3 JSON-RPC methods and gRPC methods that change a task or what hangs off it. */
const CHANGING = new Set([
  "SendMessage",
  "SendStreamingMessage",
  "CancelTask",
  "CreateTaskPushNotificationConfig",
  "SetTaskPushNotificationConfig",
  "DeleteTaskPushNotificationConfig",
  "message/send",
  "message/stream",
  "tasks/cancel",
  "tasks/pushNotificationConfig/set",
  "tasks/pushNotificationConfig/delete",
]);

/**
 * Whether a request may change a task or a context (a message to one, a cancel, a push
 * configuration set or deleted), on any binding.
 */
export function changesTask(req: CaseRequest): boolean {
  // A message that names no task and no context starts a task of its own: the shared one is left alone.
  if (sendsMessage(req)) return /"(taskId|contextId|task_id|context_id)"/.test(JSON.stringify(req));
  if (req.operation) return CHANGING.has(req.operation.operation);
  if (req.rpc !== undefined) return CHANGING.has(req.rpc);
  const path = req.path.split("?", 1).join("");
  if (req.method === "DELETE") return true;
  if (req.method === "POST" && (/:cancel$/.test(path) || /pushNotificationConfigs?$/.test(path))) return true;
  const calls = Array.isArray(req.body) ? req.body : [req.body];
  return calls.some((c) => isPlainObject(c) && typeof c.method === "string" && CHANGING.has(c.method));
}

/**
 * The case's first exchange, when other cases may share its turn: it sends a message that waits
 * for the agent's answer (no polling, not returnImmediately), and nothing after it in the case
 * changes a task, or only under a condition on that answer (ownTurnNeeded).
 */
export function shareableFirst(c: Pick<Case, "steps">): CaseExchange | undefined {
  const [first, ...rest] = c.steps as [CaseStep | undefined, ...CaseStep[]];
  if (!first || "parallel" in first || "awaitWebhook" in first || "check" in first || first.cleanup || first.when) return undefined;
  if (first.repeatUntil !== undefined || !sendsMessage(first.request)) return undefined;
  // A send that returns at once leaves a task that is still running: what the case reads next
  // depends on how long ago it was sent, so it sends its own.
  if (/"(returnImmediately|return_immediately)":true|"blocking":false/.test(JSON.stringify(first.request))) return undefined;
  if (rest.some((s) => "awaitWebhook" in s)) return undefined;
  // A later step that changes the task only when the first answer meets its condition (a cancel of
  // a task waiting for input) leaves the shared task alone otherwise: runCase sends the case's own
  // first message when the condition holds (ownTurnNeeded).
  if (changingSteps(rest).some((s) => !s.when)) return undefined;
  return first;
}

function changingSteps(steps: CaseStep[]): CaseStep[] {
  return steps.filter((s) => exchangesOf(s).some((x) => changesTask(x.request)));
}

/**
 * Whether a case that shared its first turn must send its own after all: a later step that
 * changes the task applies to this answer (`holds`: its condition is met by the answer's captures).
 */
export function ownTurnNeeded(c: Pick<Case, "steps">, holds: (when: NonNullable<CaseStep["when"]>) => boolean): boolean {
  return changingSteps(c.steps.slice(1)).some((s) => s.when !== undefined && holds(s.when));
}

/**
 * Whether every change the case makes after its first turn is one the spec says the agent refuses
 * (its steps expect an error and none a success): such cases run first among those that share a
 * turn (runCases), since a refusal leaves the shared task as it was for the next one.
 */
export function expectsRefusal(c: Pick<Case, "steps">): boolean {
  const outcomes = changingSteps(c.steps.slice(1))
    .flatMap(exchangesOf)
    .map((x) => outcomeOf(x.expect));
  return outcomes.includes("error") && !outcomes.includes("success");
}

/** What an expectation asks of its answer: an error, a success, or neither (a header check alone). */
function outcomeOf(e: CaseExchange["expect"] | undefined): "error" | "success" | undefined {
  if (!isPlainObject(e)) return undefined;
  if (e.forms !== undefined) return "success";
  const status: unknown = e.status;
  if (typeof status === "number") return status >= 400 ? "error" : "success";
  if (isPlainObject(status) && Array.isArray(status.$range)) return Number(status.$range[0]) >= 400 ? "error" : "success";
  if (isPlainObject(e.grpc) && e.grpc.status !== undefined) return e.grpc.status === "OK" ? "success" : "error";
  if (isPlainObject(e.body) && "error" in e.body) return "error";
  if (isPlainObject(e.body) && "result" in e.body) return "success";
  return undefined;
}

/**
 * Renders a first exchange for its key: each {{uuid:name}} stays a placeholder (a shared turn keeps
 * the first case's ids, so the names must agree), everything else as it will be sent.
 */
export function withUuidPlaceholders(x: CaseExchange, vars: ReadonlyMap<string, unknown>): Map<string, unknown> {
  const out = new Map(vars);
  for (const [, name] of JSON.stringify(x.request).matchAll(/\{\{uuid:([^}]+)\}\}/g)) out.set(`uuid:${name}`, `{{uuid:${name}}}`);
  return out;
}

/**
 * What makes two first turns the same: the version, the request as it goes on the wire (uuids as
 * placeholders: withUuidPlaceholders) and how the answer is read (stopAfter).
 */
export function turnKey(x: CaseExchange, version: Version, wire: WireRequest): string {
  return JSON.stringify([version, x.request.rpc ?? null, wire, x.expect.stream?.stopAfter ?? null]);
}

/** Whether a request lists tasks (ListTasks, tasks/list, GET …/tasks), on any binding. */
function listsTasks(req: CaseRequest): boolean {
  if (req.operation) return req.operation.operation === "ListTasks";
  if (req.rpc !== undefined) return req.rpc === "ListTasks";
  if (req.method === "GET" && /\/tasks(\?|$)/.test(req.path)) return true;
  const calls = Array.isArray(req.body) ? req.body : [req.body];
  return calls.some((c) => isPlainObject(c) && (c.method === "ListTasks" || c.method === "tasks/list"));
}

/**
 * A case that lists the caller's tasks without naming a context sees the tasks other cases
 * create meanwhile (page sizes, order change): such cases run after the others, one at a time.
 * A listing filtered by a context the case's own send returned sees only that conversation.
 */
export function seesOtherCases(c: Pick<Case, "steps">): boolean {
  return c.steps.flatMap(exchangesOf).some((x) => listsTasks(x.request) && !/"?(contextId|context_id)"?/.test(JSON.stringify(x.request)));
}
