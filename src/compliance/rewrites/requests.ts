// Faults in what is forwarded: the request rewritten before the agent sees it (A2A-Version,
// historyLength, includeArtifacts, returnImmediately, Authorization), so the agent's own answer
// to the changed request breaks the rule for the request the client sent.
import { isObj, mapObjects, PATCH, setQuery, V03_DATA } from "./helpers.js";
import type { Citation, Rewrite } from "./types.js";

const VERSION_CHECK: Citation = {
  version: "1.0.1",
  section: "3.6.2",
  quote:
    "Agents MUST process requests using the semantics of the requested A2A-Version (matching Major.Minor). If the version is not supported by the interface, agents MUST return a [VersionNotSupportedError](#332-error-handling).",
};

export const REQUEST_FAULTS: readonly Rewrite[] = [
  {
    name: "history-length-ignored",
    kind: "fault",
    description: "GetTask ignores historyLength: the request is forwarded without it, so the whole history comes back",
    spec: [
      { version: "1.0.1", section: "3.2.4", quote: "> 0: Return at most this many recent messages from the task's history" },
      V03_DATA,
    ],
    applies: { operations: ["GetTask"] },
    request: (req, ex) => {
      if (ex.binding === "rest") {
        const q = new URLSearchParams(req.query);
        if (!q.has("historyLength")) return req;
        q.delete("historyLength");
        return { ...req, query: q.toString() };
      }
      const j = req.json;
      if (!isObj(j) || !isObj(j.params) || !("historyLength" in j.params)) return req;
      const { historyLength: _dropped, ...params } = j.params;
      const json = { ...j, params };
      return { ...req, json, body: JSON.stringify(json) };
    },
  },
  {
    name: "version-unsupported-as-1.0",
    kind: "fault",
    description: "a request with an unsupported A2A-Version is forwarded as 1.0, so it is processed instead of refused",
    spec: [VERSION_CHECK],
    applies: {},
    request: (req, ex) => {
      if (ex.version) return req;
      const q = new URLSearchParams(req.query);
      const query = q.has("A2A-Version") ? setQuery(req.query, "A2A-Version", "1.0") : req.query;
      const headers = "a2a-version" in req.headers ? { ...req.headers, "a2a-version": "1.0" } : req.headers;
      return { ...req, headers, query };
    },
  },
  {
    name: "patch-version-refused",
    kind: "fault",
    description: "a patch version in A2A-Version (1.0.1) is forwarded as 9.9, so it is refused as unsupported",
    spec: [PATCH, VERSION_CHECK],
    applies: {},
    request: (req) =>
      /^\s*\d+\.\d+\.\d+\s*$/.test(req.headers["a2a-version"] ?? "") ? { ...req, headers: { ...req.headers, "a2a-version": "9.9" } } : req,
  },
  {
    name: "missing-version-as-1.0",
    kind: "fault",
    description: "a request without A2A-Version (header and query) is forwarded as 1.0 instead of being read as 0.3",
    spec: [{ version: "1.0.1", section: "3.6.2", quote: "Agents MUST interpret empty value as 0.3 version." }],
    applies: {},
    request: (req) =>
      (req.headers["a2a-version"] ?? "").trim() === "" && !new URLSearchParams(req.query).has("A2A-Version")
        ? { ...req, headers: { ...req.headers, "a2a-version": "1.0" } }
        : req,
  },
  {
    name: "include-artifacts-forced",
    kind: "fault",
    description: "ListTasks is forwarded with includeArtifacts: true, so artifacts come back although the client did not ask",
    spec: [
      {
        version: "1.0.1",
        section: "3.1.4",
        quote:
          "When includeArtifacts is false (the default), the artifacts field MUST be omitted entirely from each Task object in the response.",
      },
    ],
    applies: { versions: ["1.0"], operations: ["ListTasks"] },
    request: (req, ex) => {
      if (ex.binding === "rest") return { ...req, query: setQuery(req.query, "includeArtifacts", "true") };
      const j = req.json;
      if (!isObj(j) || (isObj(j.params) && j.params.includeArtifacts === true)) return req;
      const json = { ...j, params: { ...(isObj(j.params) ? j.params : {}), includeArtifacts: true } };
      return { ...req, json, body: JSON.stringify(json) };
    },
  },
  {
    name: "return-immediately-ignored",
    kind: "fault",
    description: "SendMessage is forwarded without returnImmediately (0.3: with blocking: true), so every send waits",
    spec: [
      {
        version: "1.0.1",
        section: "3.2.2",
        quote:
          "Non-Blocking (return_immediately: true): The operation MUST return immediately after creating the task, even if processing is still in progress.",
      },
    ],
    applies: { operations: ["SendMessage"] },
    request: (req) => {
      if (!isObj(req.json)) return req;
      const json = mapObjects(req.json, (o) => {
        if (o.blocking === false) return { ...o, blocking: true };
        if (o.returnImmediately !== true) return o;
        const { returnImmediately: _dropped, ...rest } = o;
        return rest;
      });
      return json === req.json ? req : { ...req, json, body: JSON.stringify(json) };
    },
  },
  {
    name: "principals-merged",
    kind: "fault",
    description: "every request is forwarded with the first Authorization the proxy saw, so tasks leak between principals",
    spec: [
      {
        version: "1.0.1",
        section: "13.1",
        quote:
          "Implementations MUST scope results to the caller's authorized access boundaries as defined by the agent's authorization model",
      },
    ],
    applies: {},
    request: (req, ex) => {
      const auth = req.headers.authorization;
      if (!auth || !ex.session) return req;
      const first = ex.session.get("principals-merged") ?? auth;
      ex.session.set("principals-merged", first);
      return first === auth ? req : { ...req, headers: { ...req.headers, authorization: first } };
    },
  },
];
