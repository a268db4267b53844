// One inspector session: the agent it is connected to, the headers the person gave (kept in memory
// only), the card as 1.0 and as 0.3 as the agent serves each, the interfaces it declares, and the
// wire log: every HTTP exchange the session's clients made (through the client's fetch seam), and
// one entry per gRPC call with its decoded request and answer (gRPC frames its own messages).
import { toJson, type DescMessage, type Message } from "@bufbuild/protobuf";
import { createParser } from "eventsource-parser";
import { createRecordingBook, type WireExchange } from "../compliance/record.js";
import { cardJson, parseAgentCard } from "../versioning/card.js";
import { LOSS_REGISTER, type Loss } from "../versioning/loss.js";
import * as v1_0 from "../../generated/v1_0/index.js";
import { createA2AClient, selectInterface, type A2AClient, type Binding, type ProtocolVersion } from "../client/index.js";

export interface Interface {
  url: string;
  binding: Binding;
  version: ProtocolVersion;
}

/** One exchange on the wire, as the page shows it. */
export interface Exchange {
  n: number;
  kind: "http" | "grpc";
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody: string;
  status: number | string;
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** Milliseconds from request to the end of the answer (none for the suite's exchanges: the runner does not time steps). */
  ms?: number;
  /** Who sent it, when not the chat: the suite's case and step. */
  origin?: string;
}

/** Bodies kept per exchange (a 10 MB answer is shown cut, never held whole twice). */
const MAX_SHOWN = 64 * 1024;
/** Bodies kept whole for a recording (a larger exchange is left out of it). */
const MAX_RECORDED = 4 * 1024 * 1024;
/** Bodies kept for a recording in all, per session; the oldest exchanges go first. */
const MAX_RECORDED_IN_ALL = 64 * 1024 * 1024;
/** Exchanges kept per session; the oldest go first. */
const MAX_EXCHANGES = 500;

const SCHEMAS: Record<string, DescMessage> = Object.fromEntries(
  [v1_0.SendMessageResponseSchema, v1_0.StreamResponseSchema, v1_0.TaskSchema, v1_0.ListTasksResponseSchema, v1_0.AgentCardSchema].map(
    (s) => [s.typeName, s],
  ),
);

export class Session {
  readonly wire: Exchange[] = [];
  card1_0: v1_0.AgentCard | undefined;
  cardUrl = "";
  raw1_0: unknown;
  raw0_3: unknown;
  interfaces: Interface[] = [];
  /** The HTML reports of the session's suite runs (the last few), and whether one is running. */
  readonly reports: string[] = [];
  /** The HTTP exchanges of the chat in full, in the order they were sent, for a recording (record.ts). */
  readonly recordable: (Partial<WireExchange> & { size?: number })[] = [];
  judging = false;
  private recordedBytes = 0;
  private n = 0;
  /** One client per interface, made on its first use and kept for the session. */
  private readonly clients = new Map<number, Promise<A2AClient>>();

  constructor(
    readonly id: string,
    readonly url: string,
    readonly headers: Record<string, string>,
  ) {}

  /** fetch that records each exchange (bodies cut at MAX_SHOWN); streams are recorded when they end. */
  readonly recordingFetch: typeof fetch = async (input, init) => {
    const started = Date.now();
    const request = new Request(input, init);
    const requestBody = typeof init?.body === "string" ? init.body : "";
    const entry: Exchange = {
      n: ++this.n,
      kind: "http",
      method: request.method,
      url: request.url,
      requestHeaders: Object.fromEntries(request.headers),
      requestBody: cut(requestBody),
      status: "…",
      responseHeaders: {},
      responseBody: "",
      ms: 0,
    };
    this.push(entry);
    let res: Response;
    try {
      res = await fetch(input, init);
    } catch (e) {
      entry.status = `failed: ${(e as Error).message}`;
      entry.ms = Date.now() - started;
      throw e;
    }
    entry.status = res.status;
    entry.responseHeaders = Object.fromEntries(res.headers);
    // Its place in the recording is taken now, so a stream that ends after a later call stays before it.
    const recorded: (typeof this.recordable)[number] = {
      method: request.method,
      url: request.url,
      headers: entry.requestHeaders,
      body: requestBody,
    };
    this.recordable.push(recorded);
    if (this.recordable.length > MAX_EXCHANGES) this.recordedBytes -= this.recordable.shift()!.size ?? 0;
    const [mine, theirs] = res.body ? res.body.tee() : [null, null];
    const done = (body: Body) => {
      entry.responseBody = body.shown;
      entry.ms = Date.now() - started;
      recorded.response = responseOf(res, body);
      recorded.size = body.full?.length ?? 0;
      // An exchange that left the list while its answer was read is not counted.
      if (this.recordable.includes(recorded)) this.keepWithin(recorded.size);
    };
    if (mine) void readBody(mine).then(done);
    else done({ shown: "", full: "", complete: true });
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
  };

  /** Finds the card (cardCandidates through the client), then fetches it as 1.0 and as 0.3 where it was found. */
  async discover(): Promise<void> {
    const client = await createA2AClient(this.url, { fetch: this.recordingFetch, headers: this.headers, timeoutMs: 15_000 });
    this.cardUrl = client.cardUrl ?? this.url;
    const asServed = async (version?: string) => {
      const res = await this.recordingFetch(this.cardUrl, { headers: { ...this.headers, ...(version ? { "a2a-version": version } : {}) } });
      const text = await res.text();
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return { error: `not JSON (HTTP ${res.status})`, body: cut(text) };
      }
    };
    this.raw1_0 = await asServed("1.0");
    this.raw0_3 = await asServed();
    this.card1_0 = client.card;
    this.interfaces = client.card.supportedInterfaces.flatMap((i) => {
      try {
        const t = selectInterface({ ...client.card, supportedInterfaces: [i] });
        return [{ url: t.url, binding: t.binding, version: t.version }];
      } catch {
        return [];
      }
    });
  }

  /** The client bound to interface `index` of the card, through the recording fetch. */
  clientFor(index: number): Promise<A2AClient> {
    const iface = this.interfaces[index];
    if (!iface) return Promise.reject(new Error(`no interface ${index}`));
    let client = this.clients.get(index);
    if (!client) {
      client = createA2AClient(this.card1_0!, {
        fetch: this.recordingFetch,
        headers: this.headers,
        version: iface.version,
        bindings: [iface.binding],
        timeoutMs: 60_000,
      });
      client.catch(() => this.clients.delete(index));
      this.clients.set(index, client);
    }
    return client;
  }

  /** Counts a kept body; past MAX_RECORDED_IN_ALL the oldest exchanges leave the recording. */
  private keepWithin(added: number): void {
    this.recordedBytes += added;
    while (this.recordedBytes > MAX_RECORDED_IN_ALL && this.recordable.length > 1) {
      this.recordedBytes -= this.recordable.shift()!.size ?? 0;
    }
  }

  /**
   * Writes the chat's HTTP exchanges as a recording (record.ts: the files `a2a-toolkit record`
   * writes, which `test --cases <dir>` replays) into `outDir`. gRPC calls are not recorded (the
   * recorder's format is HTTP), nor exchanges too large to keep whole or still under way.
   */
  async saveRecording(outDir: string): Promise<{ files: string[]; notRecorded: string[] }> {
    const book = createRecordingBook({ target: new URL(this.cardUrl || this.url).origin, outDir });
    for (const card of [this.raw1_0, this.raw0_3]) book.learnCard(card);
    const notRecorded: string[] = [];
    for (const x of this.recordable)
      if (x.response) {
        await book.ready(x as WireExchange);
        book.add(x as WireExchange);
      } else notRecorded.push(`${x.method} ${x.url}: still under way or larger than ${MAX_RECORDED} bytes`);
    const grpc = this.wire.filter((x) => x.kind === "grpc" && !x.origin).length;
    if (grpc) notRecorded.push(`${grpc} gRPC call${grpc === 1 ? "" : "s"}: a recording holds HTTP exchanges only`);
    return { files: book.files(), notRecorded };
  }

  /**
   * What the translation layer loses between the card's two versions (loss register rows,
   * LOSSY.md): the 1.0 card written as 0.3, and the card served without a version read as 1.0.
   */
  losses(): { card: string; id: string; path: string; detail: string; summary: string }[] {
    const rows = (card: string, losses: Loss[]) =>
      losses.map((l) => ({ card, id: l.id, path: l.path, detail: l.detail, summary: LOSS_REGISTER[l.id]?.summary ?? "" }));
    const out = this.card1_0 ? rows("the 1.0 card as 0.3", cardJson(this.card1_0, "0.3").losses) : [];
    try {
      const served = parseAgentCard(this.raw0_3);
      if (served.version === "0.3") out.push(...rows("the card served without a version, read as 1.0", served.losses));
    } catch {
      // not a card: the page shows what came
    }
    return out;
  }

  /** The card's security schemes, what it requires, and its signatures' protected headers (server.ts verifies them with keys the person gives). */
  security(): { schemes: string[]; requirements: string[]; signatures: string[] } {
    const card = (this.raw1_0 ?? {}) as {
      securitySchemes?: Record<string, unknown>;
      securityRequirements?: unknown[];
      signatures?: { protected?: string }[];
    };
    const schemes = Object.entries(card.securitySchemes ?? {}).map(([name, scheme]) => `${name}: ${JSON.stringify(scheme)}`);
    const requirements = (card.securityRequirements ?? []).map((r) => JSON.stringify(r));
    const signatures = (card.signatures ?? []).map((sig, i) => {
      try {
        const header = JSON.parse(Buffer.from(sig.protected ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
        return `signature ${i + 1}: ${JSON.stringify(header)}`;
      } catch {
        return `signature ${i + 1}: the protected header is not base64url JSON`;
      }
    });
    return { schemes, requirements, signatures };
  }

  describe() {
    return {
      losses: this.losses(),
      security: this.security(),
      session: this.id,
      cardUrl: this.cardUrl,
      name: this.card1_0?.name ?? "",
      card1_0: this.raw1_0,
      card0_3: this.raw0_3,
      interfaces: this.interfaces,
      wire: this.wire,
    };
  }

  /** A gRPC call (or any call the fetch seam did not see) in the wire log, decoded. */
  note(iface: Interface, operation: string, request: unknown, answer: string, started: number, status: string): void {
    if (iface.binding !== "GRPC") return;
    this.push({
      n: ++this.n,
      kind: "grpc",
      method: operation,
      url: iface.url,
      requestHeaders: { ...this.headers },
      requestBody: cut(JSON.stringify(request)),
      status,
      responseHeaders: {},
      responseBody: cut(answer),
      ms: Date.now() - started,
    });
  }

  /** A protobuf-es message as ProtoJSON for the page. */
  view(m: Message): unknown {
    const schema = SCHEMAS[m.$typeName];
    return schema ? toJson(schema, m as never) : m;
  }

  /** An exchange someone else made (the suite's runner) in the log, bodies cut; returns its number. */
  log(e: Omit<Exchange, "n">): number {
    const entry = { ...e, n: ++this.n, requestBody: cut(e.requestBody), responseBody: cut(e.responseBody) };
    this.push(entry);
    return entry.n;
  }

  private push(e: Exchange): void {
    this.wire.push(e);
    if (this.wire.length > MAX_EXCHANGES) this.wire.shift();
  }
}

function cut(s: string): string {
  return s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}… (${s.length} characters in all)` : s;
}

interface Body {
  /** What the wire log shows (cut at MAX_SHOWN). */
  shown: string;
  /** The whole text, up to MAX_RECORDED (undefined beyond: not recordable). */
  full?: string;
  /** The body was read to its end (false: the reader left or the agent cut it). */
  complete: boolean;
}

async function readBody(body: ReadableStream<Uint8Array>): Promise<Body> {
  const decoder = new TextDecoder();
  let text = "";
  let total = 0;
  let complete = true;
  let failure = "";
  try {
    for await (const chunk of body) {
      total += chunk.length;
      if (total <= MAX_RECORDED) text += decoder.decode(chunk, { stream: true });
    }
  } catch (e) {
    complete = false;
    failure = `… (read failed: ${(e as Error).message})`;
  }
  const full = total <= MAX_RECORDED ? text : undefined;
  const shown = total > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${total} bytes in all)` : text;
  return { shown: shown + failure, full, complete };
}

/** A response as the recording book takes it: SSE as its events (stopped early when not read to the end). */
function responseOf(res: Response, body: Body): WireExchange["response"] | undefined {
  if (body.full === undefined) return undefined;
  const headers = Object.fromEntries(res.headers);
  if (!(headers["content-type"] ?? "").startsWith("text/event-stream")) return { status: res.status, headers, text: body.full };
  const events: unknown[] = [];
  const parser = createParser({
    onEvent: (m) => {
      try {
        events.push(JSON.parse(m.data));
      } catch {
        events.push(m.data);
      }
    },
  });
  parser.feed(body.full);
  return { status: res.status, headers, events, ...(body.complete ? { closed: true } : { stoppedAfter: Math.max(1, events.length) }) };
}
