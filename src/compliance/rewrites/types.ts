// The shapes of the rewriting proxy's table (../rewrites.ts): what a rewrite is, and the parsed
// exchange (request, reply, stream head, SSE event) its functions are given by ../proxy.ts.
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export type ProxyVersion = "1.0" | "0.3";
export type ProxyBinding = "json-rpc" | "rest" | "card";

/** The 1.0 operation names (0.3 methods and routes are named by their 1.0 counterpart). */
export type Operation =
  | "SendMessage"
  | "SendStreamingMessage"
  | "GetTask"
  | "ListTasks"
  | "CancelTask"
  | "SubscribeToTask"
  | "CreateTaskPushNotificationConfig"
  | "GetTaskPushNotificationConfig"
  | "ListTaskPushNotificationConfigs"
  | "DeleteTaskPushNotificationConfig"
  | "GetExtendedAgentCard"
  | "AgentCard";

export interface Citation {
  version: "0.3.0" | "1.0.0" | "1.0.1";
  /** Heading number in /work/shared/spec/text/specification-v<version>.md, or a file of the spec (a2a.proto …). */
  section: string;
  quote: string;
}

/** The request as the proxy received it (and, after `request` rewrites, as it is forwarded). */
export interface ProxyRequest {
  method: string;
  /** Path below the target's base URL, without the query. */
  path: string;
  query: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The raw body text ("" when none). */
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: Json;
}

/** What the proxy knows about an exchange before the agent answers. */
export interface Exchange {
  /** From A2A-Version (header, else query; empty = 0.3; Major.Minor); undefined for other versions. */
  version?: ProxyVersion;
  binding: ProxyBinding;
  operation?: Operation;
  request: ProxyRequest;
  /** What one proxy remembers across its exchanges, for rewrites that need it (one map per proxy). */
  session?: Map<string, string>;
}

export interface Reply {
  status: number;
  /** Lower-case names; content-length is recomputed by the proxy. */
  headers: Record<string, string>;
  /** The body parsed as JSON (undefined: not JSON; `text` then holds it). */
  body?: Json;
  text?: string;
}

export interface StreamHead {
  status: number;
  headers: Record<string, string>;
}

/** One SSE event as read (eventsource-parser) and as it will be written. */
export interface SseEvent {
  /** The `data:` text (several data lines joined with "\n"). */
  data: string;
  /** `data` parsed as JSON, when it is JSON. */
  json?: Json;
  event?: string;
  id?: string;
  /** Comment lines written before the event's fields (without the leading ":"). */
  comments?: string[];
  /** Line ending of every line of this event (default "\n"). */
  eol?: "\n" | "\r\n" | "\r";
}

export interface Applies {
  /** Default: both versions (and exchanges whose version is neither). */
  versions?: ProxyVersion[];
  /** Default: json-rpc and rest (not the well-known card). */
  bindings?: ProxyBinding[];
  /** Default: every operation. */
  operations?: Operation[];
}

export interface Rewrite {
  name: string;
  kind: "variant" | "fault";
  /** One line for `a2a-toolkit proxy --list`. */
  description: string;
  /** Variants: the sentences that allow the choice. Faults: the sentence broken. */
  spec: Citation[];
  /** Variants that stay within every MUST but do not follow a SHOULD: that sentence. */
  departsFrom?: Citation[];
  applies: Applies;
  /** Rewrites the request before it is forwarded (e.g. a clamped pageSize). */
  request?(req: ProxyRequest, ex: Exchange): ProxyRequest;
  /** Answers in place of the agent (the request is not forwarded) when it returns a reply. */
  answer?(ex: Exchange): Reply | undefined;
  /** Rewrites a non-streaming reply. */
  reply?(reply: Reply, ex: Exchange): Reply;
  /** Rewrites the status and headers of an SSE stream. */
  streamHead?(head: StreamHead, ex: Exchange): StreamHead;
  /** Rewrites one SSE event (index: its position in the agent's stream, from 0); [] drops it. */
  event?(event: SseEvent, ex: Exchange, index: number): SseEvent[];
  /** Keeps an SSE stream open after the agent has ended it, until the client goes away. */
  holdOpen?: boolean;
  /** Ends an SSE stream right after this (rewritten) event, as if the agent had closed it there. */
  endsAfter?(event: SseEvent, ex: Exchange): boolean;
}
