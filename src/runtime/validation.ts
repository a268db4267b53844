// Turns ajv errors from the generated validators into one readable sentence with a JSON path.
//
// The generated validators stop at the first failure (allErrors: false), so their error list is the
// failure chain of one value: the last error is the top-level failure, and when that is an anyOf, the
// errors before it are what each member of the union reported. Unions are where a naive "first" or
// "deepest" error misleads (a 0.3 data part reported as "text is missing"), so they are explained here
// member by member.
import type { ErrorObject, ValidateFunction } from "ajv";

export interface ValidationIssue {
  /** JSON Pointer of the offending value ("" = the whole document). */
  path: string;
  /** The rule that failed, in words. */
  message: string;
}

export interface CheckOptions {
  /**
   * The 0.3 JSON-RPC validator module (`v0_3.validators`), when validating that dialect. With it, a
   * failure inside a tagged union (a part's `kind`, a result's `kind`, a security scheme's `type`,
   * an A2ARequest's `method`) is explained by re-validating the value against the member its tag
   * names, so the issue is that member's own. Without it the tag only rules members out.
   */
  branches?: Readonly<Record<string, ValidateFunction>>;
}

/**
 * The tagged unions of the 0.3 JSON-RPC schema (a2a.json, v0.3.0): tag property -> tag value -> the
 * definition of the member carrying that constant. `method` values are the JSON-RPC methods of
 * A2ARequest (the same pairs as `jsonRpc.request` in the 0.3 method table).
 */
export const v0_3UnionTags: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  kind: {
    text: "TextPart",
    file: "FilePart",
    data: "DataPart",
    task: "Task",
    message: "Message",
    "status-update": "TaskStatusUpdateEvent",
    "artifact-update": "TaskArtifactUpdateEvent",
  },
  type: {
    apiKey: "APIKeySecurityScheme",
    http: "HTTPAuthSecurityScheme",
    oauth2: "OAuth2SecurityScheme",
    openIdConnect: "OpenIdConnectSecurityScheme",
    mutualTLS: "MutualTLSSecurityScheme",
  },
  method: {
    "message/send": "SendMessageRequest",
    "message/stream": "SendStreamingMessageRequest",
    "tasks/get": "GetTaskRequest",
    "tasks/cancel": "CancelTaskRequest",
    "tasks/resubscribe": "TaskResubscriptionRequest",
    "tasks/pushNotificationConfig/set": "SetTaskPushNotificationConfigRequest",
    "tasks/pushNotificationConfig/get": "GetTaskPushNotificationConfigRequest",
    "tasks/pushNotificationConfig/list": "ListTaskPushNotificationConfigRequest",
    "tasks/pushNotificationConfig/delete": "DeleteTaskPushNotificationConfigRequest",
    "agent/getAuthenticatedExtendedCard": "GetAuthenticatedExtendedCardRequest",
  },
};

/** Tag properties, most specific first (a JSON-RPC request is told apart by `method`, not by a part's `kind`). */
const TAGS = ["method", "kind", "type"] as const;

// Patterns the 1.0 / 0.3 REST schemas use (codegen/jsonschema.ts), said in words.
const PATTERN_WORDS: Readonly<Record<string, string>> = {
  "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$":
    "must be an RFC 3339 timestamp such as 2025-04-02T16:59:35.331Z",
  "^[A-Za-z0-9+/_-]*={0,2}$": "must be base64-encoded bytes",
  "^-?\\d+$": "must be an integer written in decimal digits",
  "^-?\\d+(\\.\\d{1,9})?s$": 'must be a duration in seconds such as "1.5s"',
};

/** Runs a generated validator; returns undefined when valid, else the issue that explains the failure. */
export function check(validate: ValidateFunction, value: unknown, options: CheckOptions = {}): ValidationIssue | undefined {
  if (validate(value)) return undefined;
  const failure = parse(validate.errors ?? []);
  if (!failure) return { path: "", message: "invalid" };
  return explain(failure, value, options);
}

export function formatIssue(issue: ValidationIssue): string {
  return `${issue.path || "/"}: ${issue.message}`;
}

/** One failure: a plain error, or an anyOf with what each member reported. */
interface Failure {
  error: ErrorObject;
  members: Failure[];
}

/**
 * Rebuilds the failure tree from ajv's flat list: an anyOf error closes over the failures before it
 * that lie at or below its own path (each member stops at its first failure).
 */
function parse(errors: readonly ErrorObject[]): Failure | undefined {
  const stack: Failure[] = [];
  for (const error of errors) {
    if (error.keyword !== "anyOf") {
      stack.push({ error, members: [] });
      continue;
    }
    const members: Failure[] = [];
    for (let top = stack.at(-1); top && within(top.error.instancePath, error.instancePath); top = stack.at(-1)) {
      stack.pop();
      members.unshift(top);
    }
    stack.push({ error, members });
  }
  return stack.at(-1);
}

function within(path: string, base: string): boolean {
  return path === base || path.startsWith(`${base}/`);
}

function explain(f: Failure, root: unknown, options: CheckOptions): ValidationIssue {
  if (f.error.keyword !== "anyOf") return describe(f.error, root);
  return explainTagged(f, root, options) ?? explainUnion(f.members, f.error.instancePath, root, options);
}

/** A union without a tag that settles it: what the members reported, taken together. */
function explainUnion(members: readonly Failure[], site: string, root: unknown, options: CheckOptions): ValidationIssue {
  const [first, ...others] = members;
  if (!first) return { path: site, message: "does not match any allowed shape" };
  // Every member wants a different field: a oneof (1.0, 0.3 REST) or FileWithBytes | FileWithUri (0.3).
  if (members.every((m) => m.error.keyword === "required" && m.error.instancePath === site)) {
    const names = [...new Set(members.map((m) => JSON.stringify(missing(m.error))))];
    const [only] = members;
    if (names.length === 1 && only) return describe(only.error, root);
    const oneof = members.every((m) => /\/anyOf\/\d+\/required$/.test(m.error.schemaPath));
    return {
      path: site,
      message: oneof
        ? `must set one member of the oneof ${names.join(" | ")}; none is set`
        : `must have one of the fields ${names.join(", ")}`,
    };
  }
  // Alternatives for the same value (an int64 as number or string, a number or "NaN"): say all of them.
  if (members.every((m) => m.error.instancePath === site && m.members.length === 0 && m.error.keyword !== "required")) {
    const value = at(root, site);
    // ProtoJSON integers: a JSON number or a string of digits. Say what the number form wants.
    const numeric = members.find(
      (m) => ["minimum", "maximum"].includes(m.error.keyword) || (m.error.keyword === "type" && m.error.params.type === "integer"),
    );
    if (numeric && members.some((m) => m.error.keyword === "pattern" || (m.error.keyword === "type" && m.error.params.type === "string"))) {
      const range = numeric.error.keyword === "type" ? "" : ` ${describe(numeric.error, undefined).message.replace(/^must be /, "")}`;
      return { path: site, message: `must be an integer${range}, as a JSON number or a string of decimal digits${got(value)}` };
    }
    const words = [...new Set(members.map((m) => describe(m.error, undefined).message))];
    return { path: site, message: `${words.join(", or ")}${got(value)}` };
  }
  // Otherwise the member that got furthest into the value explains it best.
  return explain(deepest([first, ...others]), root, options);
}

/** A tagged union (0.3 `kind`, `type`, `method`): explain the member the tag names, or say the tag is wrong. */
function explainTagged(f: Failure, root: unknown, options: CheckOptions): ValidationIssue | undefined {
  const site = f.error.instancePath;
  const value = at(root, site);
  if (!isObject(value)) return undefined;
  for (const tag of TAGS) {
    const tagPath = `${site}/${tag}`;
    const actual = value[tag];
    const known = v0_3UnionTags[tag] ?? {};
    // Members that rejected the value because of its tag say so with a const error on the tag.
    const refused = f.members.filter((m) => m.error.keyword === "const" && m.error.instancePath === tagPath);
    if (actual === undefined) {
      // No tag at all: that is the issue if the members ask for it.
      const asked = f.members.some((m) => m.error.keyword === "required" && m.error.instancePath === site && missing(m.error) === tag);
      if (asked) return { path: tagPath, message: `required field "${tag}" is missing` };
      continue;
    }
    if (refused.length === 0 && !(typeof actual === "string" && known[actual] !== undefined)) continue;
    if (typeof actual !== "string") return { path: tagPath, message: `must be of type string${got(actual)}` };
    const expected = (
      tagValuesOf(f, tag, value, options) ?? refused.map((m) => (m.error.params as { allowedValue: unknown }).allowedValue)
    ).map((v) => JSON.stringify(v));
    const oneOf = expected.length === 1 ? expected[0] : `one of ${expected.join(", ")}`;
    const name = known[actual];
    const member = name === undefined ? undefined : options.branches?.[name];
    const issue = member ? check(member, value, options) : undefined;
    if (issue) return { path: site + issue.path, message: issue.message };
    if (name === undefined || member) {
      // An unknown tag value, or the member it names accepts the value but this union does not have that member.
      return {
        path: tagPath,
        message: `${JSON.stringify(actual)} is not a ${tag} allowed here${expected.length > 0 ? `; expected ${oneOf}` : ""}`,
      };
    }
    // Without the validator module: leave out the members that refused the tag and explain the rest.
    const rest = f.members.filter((m) => !refused.includes(m));
    return rest.length > 0 ? explainUnion(rest, site, root, options) : undefined;
  }
  return undefined;
}

/**
 * The tag values this union takes, when the validator module is at hand: a tag value's definition is
 * a member if validating the value against it fails the way one of the union's members failed.
 */
function tagValuesOf(f: Failure, tag: string, value: Record<string, unknown>, options: CheckOptions): string[] | undefined {
  if (!options.branches) return undefined;
  const site = f.error.instancePath;
  const signature = (e: ErrorObject, base: string) => `${base}${e.instancePath} ${e.keyword} ${JSON.stringify(e.params)}`;
  const seen = new Set(f.members.map((m) => signature(m.error, "")));
  const values: string[] = [];
  for (const [tagValue, name] of Object.entries(v0_3UnionTags[tag] ?? {})) {
    const validate = options.branches[name];
    if (!validate || validate(value)) continue;
    const last = validate.errors?.at(-1);
    if (last && seen.has(signature(last, site))) values.push(tagValue);
  }
  return values.length > 0 ? values : undefined;
}

/** The member failure whose deepest error lies deepest in the value (first wins a tie). */
function deepest(members: readonly [Failure, ...Failure[]]): Failure {
  let best = members[0];
  let bestDepth = -1;
  for (const m of members) {
    const d = depth(m);
    if (d > bestDepth) [best, bestDepth] = [m, d];
  }
  return best;
}

function depth(f: Failure): number {
  const own = f.error.instancePath.split("/").length + (f.error.keyword === "required" ? 1 : 0);
  return Math.max(own, ...f.members.map(depth));
}

function describe(e: ErrorObject, root: unknown): ValidationIssue {
  const path = e.instancePath;
  const p = e.params as Record<string, unknown>;
  const value = at(root, path);
  switch (e.keyword) {
    case "required":
      return { path: `${path}/${escape(missing(e))}`, message: `required field "${missing(e)}" is missing` };
    case "false schema": {
      // Emitted by the oneof exclusivity rule (dependentSchemas: member -> other members false).
      const field = unescape(path.slice(path.lastIndexOf("/") + 1));
      const other = /dependentSchemas\/([^/]+)\/properties\/[^/]+\/false schema$/.exec(e.schemaPath)?.[1];
      const beside = other ? ` and "${unescape(other)}" is set too` : " and another member is set too";
      return { path, message: `"${field}" is a member of a oneof${beside}; set only one` };
    }
    case "enum":
      return { path, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}${got(value)}` };
    case "const":
      return { path, message: `must be ${JSON.stringify(p.allowedValue)}${got(value)}` };
    case "type":
      return { path, message: `must be of type ${String(p.type).split(",").join(" or ")}${got(value)}` };
    case "minimum":
      return { path, message: `must be at least ${String(p.limit)}${got(value)}` };
    case "maximum":
      return { path, message: `must be at most ${String(p.limit)}${got(value)}` };
    case "minItems":
      return { path, message: `must contain at least ${String(p.limit)} item(s)${Array.isArray(value) ? ` (got ${value.length})` : ""}` };
    case "pattern":
      return { path, message: `${PATTERN_WORDS[String(p.pattern)] ?? `must match the pattern ${String(p.pattern)}`}${got(value)}` };
    case "format":
      return {
        path,
        message: `${p.format === "date-time" ? "must be a valid RFC 3339 date-time" : `must be a valid ${String(p.format)}`}${got(value)}`,
      };
    default:
      return { path, message: e.message ?? e.keyword };
  }
}

function missing(e: ErrorObject): string {
  return String((e.params as { missingProperty: unknown }).missingProperty);
}

/** " (got …)" with a short rendering of the offending value. */
function got(value: unknown): string {
  if (value === undefined) return "";
  const kind = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : undefined;
  if (kind) return ` (got ${kind})`;
  const text = JSON.stringify(value);
  return ` (got ${text.length > 60 ? `${text.slice(0, 57)}...` : text})`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The value at a JSON Pointer, or undefined. */
function at(root: unknown, pointer: string): unknown {
  if (pointer === "") return root;
  let v: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    const key = unescape(raw);
    if (Array.isArray(v)) v = v[Number(key)];
    else if (isObject(v)) v = v[key];
    else return undefined;
  }
  return v;
}

function escape(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function unescape(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}
