// The inspector's page: plain DOM, no framework, no build step. Everything an agent sends is put in
// the page with textContent (or as an attribute-free element), never as markup, so an agent's
// `<script>` or `javascript:` link stays text. The page talks only to the inspector's local API
// (src/inspector/server.ts), which uses the toolkit's client.
const $ = (id) => document.getElementById(id);
const state = { session: "", interfaces: [], taskId: "", contextId: "", wire: [] };

function el(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

function say(text, bad = false) {
  const s = $("connect-status");
  s.textContent = text;
  s.className = bad ? "bad" : "";
}

function headersFrom(text) {
  const out = {};
  for (const line of text.split(/\n|;/)) {
    const i = line.indexOf(":");
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

async function api(path, body) {
  const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const json = await res.json().catch(() => ({ error: `the inspector answered HTTP ${res.status}` }));
  if (!res.ok) throw new Error(json.error ?? `HTTP ${res.status}`);
  return json;
}

async function connect(event) {
  event.preventDefault();
  say("connecting…");
  try {
    const r = await api("/api/connect", { url: $("url").value, headers: headersFrom($("headers").value) });
    state.session = r.session;
    state.interfaces = r.interfaces;
    state.taskId = state.contextId = "";
    $("card-url").textContent = `Card found at ${r.cardUrl}`;
    $("card10").textContent = JSON.stringify(r.card1_0, null, 2);
    $("card03").textContent = JSON.stringify(r.card0_3, null, 2);
    showCardExtras(r);
    const list = $("interfaces");
    list.replaceChildren(...r.interfaces.map((i) => el("li", `${i.version} ${i.binding} ${i.url}`)));
    $("iface").replaceChildren(
      ...r.interfaces.map((i, n) => Object.assign(el("option", `${i.version} ${i.binding}`), { value: String(n) })),
    );
    say(`connected to ${r.name || "the agent"}: ${r.interfaces.length} interfaces`);
    showWire(r.wire);
  } catch (e) {
    say(`could not connect: ${e.message}`, true);
  }
}

/** Security schemes and signatures of the 1.0 card, and the loss register rows between its versions, as text. */
function showCardExtras(r) {
  const { schemes, requirements, signatures } = r.security;
  $("verdicts").replaceChildren();
  $("security").replaceChildren(
    ...(schemes.length ? schemes.map((s) => el("li", `scheme ${s}`)) : [el("li", "no security schemes declared")]),
    ...requirements.map((q) => el("li", `required: ${q}`)),
    ...(signatures.length ? signatures.map((s) => el("li", `${s}`)) : [el("li", "the card is not signed")]),
  );
  $("losses").replaceChildren(
    ...(r.losses.length
      ? r.losses.map((l) => el("li", `${l.id} ${l.summary}: ${l.card}, ${l.path}: ${l.detail}`, "loss"))
      : [el("li", "nothing is lost either way")]),
  );
}

/** The signatures checked against the keys the person trusts: one verdict per signature. */
async function verify(event) {
  event.preventDefault();
  const out = $("verdicts");
  try {
    const { checks } = await api("/api/verify", { session: state.session, jwks: $("jwks").value });
    out.replaceChildren(
      ...(checks.length
        ? checks.map((c) =>
            el(
              "li",
              `signature ${c.index + 1} (kid ${c.kid ?? "?"}, ${c.alg ?? "?"}): ${c.verified ? "verified" : `NOT verified: ${c.error}`}`,
              c.verified ? "good" : "bad",
            ),
          )
        : [el("li", "the card is not signed: nothing to verify")]),
    );
  } catch (e) {
    out.replaceChildren(el("li", `not checked: ${e.message}`, "bad"));
  }
}

function turn(text, className) {
  const line = el("div", text, `turn ${className}`);
  $("conversation").append(line);
  line.scrollIntoView({ block: "nearest" });
  return line;
}

/** Parts as one line of text: texts as they are, data as JSON, files by name, media type and size or URL (never a link). */
function partsText(parts) {
  return (parts ?? [])
    .map((p) => {
      if (p.text !== undefined) return p.text;
      if (p.data !== undefined) return JSON.stringify(p.data);
      const what = [p.filename, p.mediaType].filter(Boolean).join(" ");
      if (p.url !== undefined) return `[file ${what} at ${p.url}]`;
      return `[file ${what}${p.raw !== undefined ? `, ${Math.floor((p.raw.length * 3) / 4)} bytes` : ""}]`;
    })
    .join("");
}

function remember(task) {
  if (!task) return;
  if (task.id) state.taskId = task.id;
  if (task.contextId) state.contextId = task.contextId;
  const s = task.status?.state ?? "";
  $("task-line").textContent = `task ${state.taskId} ${s}`;
  if (s === "TASK_STATE_INPUT_REQUIRED" || s === "TASK_STATE_AUTH_REQUIRED") {
    $("continue").checked = true;
    turn(`the agent asks for more (${s.replace("TASK_STATE_", "").toLowerCase()}): your next message continues the task`, "hint");
  }
}

function showAnswer(answer) {
  if (answer.message) return turn(`agent: ${partsText(answer.message.parts)}`, "agent");
  const task = answer.task ?? answer;
  const text = (task.artifacts ?? []).map((a) => partsText(a.parts)).join("\n");
  turn(`agent (task ${task.status?.state ?? ""}): ${text || partsText(task.status?.message?.parts)}`, "agent");
  remember(task);
}

async function request(stream) {
  const cont = $("continue").checked;
  const file = $("file").files[0];
  const data = $("data").value;
  // A data part and a file go with one message.
  $("data").value = "";
  $("file").value = "";
  return {
    session: state.session,
    interface: Number($("iface").value),
    text: $("text").value,
    data,
    ...(file ? { file: { name: file.name, mediaType: file.type, base64: await base64Of(file) } } : {}),
    stream,
    ...(!stream && $("immediately").checked ? { returnImmediately: true } : {}),
    ...(cont && state.taskId ? { taskId: state.taskId, contextId: state.contextId } : {}),
  };
}

async function base64Of(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** What the person sent, as one line. */
function sentText(body) {
  return [body.text, body.data, body.file ? `[file ${body.file.name}]` : ""].filter(Boolean).join(" ");
}

async function send(event) {
  event.preventDefault();
  const body = await request(false);
  turn(`you: ${sentText(body)}`, "user");
  try {
    const { answer } = await api("/api/send", body);
    showAnswer(answer);
    if (body.returnImmediately && answer.task && !settled(answer.task.status?.state)) await poll(body.interface, answer.task.id);
  } catch (e) {
    turn(`error: ${e.message}`, "error");
  }
  refreshWire();
}

const SETTLED = ["COMPLETED", "FAILED", "CANCELED", "REJECTED", "INPUT_REQUIRED", "AUTH_REQUIRED"].map((s) => `TASK_STATE_${s}`);
const settled = (s) => SETTLED.includes(s);

/**
 * After returnImmediately: GetTask every half second until the task ends or asks for something (at
 * most 2 minutes), or until the page shows another task (a new send, stream or connection): an
 * earlier task's answer must not take the task line, or Cancel and Subscribe, from the current one.
 */
async function poll(iface, taskId) {
  let last = "";
  const movedOn = () => {
    if (state.taskId === taskId) return false;
    turn(`stopped polling task ${taskId}: ${state.taskId ? `task ${state.taskId} is shown now` : "connected again"}`, "hint");
    return true;
  };
  for (let i = 0; i < 240; i++) {
    await new Promise((r) => setTimeout(r, 500));
    if (movedOn()) return;
    const { answer } = await api("/api/task", { session: state.session, interface: iface, op: "get", taskId });
    if (movedOn()) return;
    const s = answer.status?.state ?? "";
    if (s !== last) turn(`poll: task ${answer.id} ${s}`, "status");
    last = s;
    if (settled(s)) return showAnswer({ task: answer });
  }
  turn(`stopped polling task ${taskId}: still ${last} after 2 minutes`, "error");
}

async function getTask() {
  if (!state.taskId) return turn("no task yet", "error");
  try {
    const { answer } = await api("/api/task", {
      session: state.session,
      interface: Number($("iface").value),
      op: "get",
      taskId: state.taskId,
    });
    showAnswer({ task: answer });
  } catch (e) {
    turn(`error: ${e.message}`, "error");
  }
  refreshWire();
}

async function listTasks() {
  if (!state.contextId) return turn("no context yet: send a message first", "error");
  try {
    const body = { session: state.session, interface: Number($("iface").value), op: "list", contextId: state.contextId };
    const tasks = (await api("/api/task", body)).answer.tasks ?? [];
    turn(`${tasks.length} task${tasks.length === 1 ? "" : "s"} in context ${state.contextId}:`, "hint");
    for (const t of tasks) turn(`  ${t.id} ${t.status?.state ?? ""}`, "listed");
  } catch (e) {
    turn(`error: ${e.message}`, "error");
  }
  refreshWire();
}

/** Streams render as they arrive: status lines, artifact chunks appended to their artifact's line. */
async function stream() {
  const body = await request(true);
  turn(`you (streaming): ${sentText(body)}`, "user");
  await follow("/api/send", body, "stream");
}

/** SubscribeToTask on the last task: its events from now on, rendered like a stream. */
async function subscribe() {
  if (!state.taskId) return turn("no task to subscribe to yet", "error");
  turn(`subscribed to task ${state.taskId}`, "hint");
  await follow("/api/subscribe", { session: state.session, interface: Number($("iface").value), taskId: state.taskId }, "subscription");
}

async function follow(path, body, what) {
  const artifacts = new Map();
  const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok || !res.body) {
    const j = await res.json().catch(() => ({}));
    turn(`error: ${j.error ?? res.status}`, "error");
    return;
  }
  await readEvents(res, (kind, data) => {
    if (kind === "end") turn(`${what} ended after ${data.events} events`, "hint");
    else if (kind === "failure") turn(`error: ${data.error}`, "error");
    else onEvent(data, artifacts);
  });
  refreshWire();
}

/** The inspector's own SSE answers (stream, judge): one call per event, with its name and JSON data. */
async function readEvents(res, onEvent) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let at;
    while ((at = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      onEvent(/^event: (.*)$/m.exec(frame)?.[1] ?? "message", JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? "{}"));
    }
  }
}

function onEvent(e, artifacts) {
  if (e.task) return (remember(e.task), turn(`task ${e.task.id} ${e.task.status?.state ?? ""}`, "status"));
  if (e.message) return turn(`agent: ${partsText(e.message.parts)}`, "agent");
  if (e.statusUpdate) {
    remember({ id: e.statusUpdate.taskId, contextId: e.statusUpdate.contextId, status: e.statusUpdate.status });
    return turn(`status ${e.statusUpdate.status?.state ?? ""} ${partsText(e.statusUpdate.status?.message?.parts)}`, "status");
  }
  if (e.artifactUpdate) {
    const a = e.artifactUpdate.artifact ?? {};
    let line = artifacts.get(a.artifactId);
    if (!line || !e.artifactUpdate.append) {
      line = turn("", "artifact");
      line.dataset.artifact = a.artifactId ?? "";
      artifacts.set(a.artifactId, line);
    }
    const chunk = el("span", partsText(a.parts), "chunk");
    line.append(chunk);
  }
}

async function cancel() {
  if (!state.taskId) return turn("no task to cancel yet", "error");
  try {
    const r = await api("/api/cancel", { session: state.session, interface: Number($("iface").value), taskId: state.taskId });
    showAnswer({ task: r.answer });
  } catch (e) {
    turn(`error: ${e.message}`, "error");
  }
  refreshWire();
}

/** The suite against the agent, with live progress; each failure links to its exchange in the wire log. */
async function judge(event) {
  event.preventDefault();
  if (!state.session) return void ($("judge-status").textContent = "connect to an agent first");
  const status = $("judge-status");
  status.textContent = "starting the suite…";
  status.className = "";
  $("failures").replaceChildren();
  $("report").hidden = true;
  $("judge-progress").value = 0;
  const body = {
    session: state.session,
    version: $("judge-version").value,
    binding: $("judge-binding").value,
    level: $("judge-level").value,
    cases: $("judge-cases").value,
    acts: $("judge-acts").value,
  };
  const res = await fetch("/api/judge", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok || !res.body) {
    const j = await res.json().catch(() => ({}));
    status.textContent = `the suite did not run: ${j.error ?? res.status}`;
    status.className = "bad";
    return;
  }
  await readEvents(res, (kind, data) => {
    if (kind === "progress") {
      Object.assign($("judge-progress"), { value: data.index + 1, max: data.total });
      status.textContent = `${data.index + 1}/${data.total} ${data.status.toUpperCase()} ${data.id}`;
    } else if (kind === "failure") {
      status.textContent = `the suite did not run: ${data.error}`;
      status.className = "bad";
    } else if (kind === "report") showReport(data);
  });
  refreshWire();
}

function showReport(r) {
  const status = $("judge-status");
  status.textContent = r.summary;
  status.className = r.failed ? "bad" : "";
  const src = `/api/report?session=${encodeURIComponent(state.session)}&run=${r.run}`;
  $("failures").replaceChildren(
    ...r.failures.map((f) => {
      const li = el("li", `${f.status.toUpperCase()} ${f.id}: ${f.reason}`, f.status === "fail" ? "bad" : "");
      if (f.exchange !== undefined) {
        const wire = el("button", `wire exchange #${f.exchange}`, "to-wire");
        wire.type = "button";
        wire.addEventListener("click", () => void openExchange(f.exchange));
        li.append(wire);
      }
      const inReport = el("button", "in the report", "to-report");
      inReport.type = "button";
      inReport.addEventListener("click", () => ($("report").src = `${src}#${encodeURIComponent(f.anchor)}`));
      li.append(inReport);
      return li;
    }),
  );
  $("report").src = src;
  $("report").hidden = false;
}

/** Shows exchange number `n` of the wire log (fetched afresh) and scrolls to it. */
async function openExchange(n) {
  await refreshWire();
  const i = state.wire.findIndex((x) => x.n === n);
  if (i < 0) return void ($("exchange").textContent = `exchange #${n} is no longer in the log (it keeps the last 500)`);
  const tr = $("wire").tBodies[0].rows[i];
  showExchange(i, tr);
  tr.scrollIntoView({ block: "center" });
}

/** Saves the chat as a recording that `a2a-toolkit test --cases <dir>` replays. */
async function saveRecording(event) {
  event.preventDefault();
  const out = $("record-status");
  out.hidden = false;
  out.className = "";
  try {
    const r = await api("/api/record", { session: state.session, dir: $("record-dir").value });
    out.textContent = [
      `saved ${r.files.length} file${r.files.length === 1 ? "" : "s"} in ${r.dir}:`,
      ...r.files.map((f) => `  ${f}`),
      ...r.notRecorded.map((n) => `not recorded: ${n}`),
      `replay: npx a2a-toolkit test <agent URL> --cases ${r.dir} --only-cases`,
    ].join("\n");
  } catch (e) {
    out.textContent = `not saved: ${e.message}`;
    out.className = "bad";
  }
}

async function refreshWire() {
  if (!state.session) return;
  const r = await fetch(`/api/wire?session=${encodeURIComponent(state.session)}`).then((x) => x.json());
  showWire(r.exchanges);
}

function showWire(exchanges) {
  state.wire = exchanges ?? [];
  const rows = state.wire.map((x, i) => {
    const tr = el("tr");
    for (const v of [x.n, x.method, x.url, x.status, x.ms ?? "–"]) tr.append(el("td", String(v)));
    tr.dataset.n = String(x.n);
    const failed = typeof x.status === "number" ? x.status >= 400 : !["OK", "…"].includes(x.status);
    if (failed) tr.className = "bad";
    tr.addEventListener("click", () => showExchange(i, tr));
    return tr;
  });
  $("wire").tBodies[0].replaceChildren(...rows);
}

function curlOf(x) {
  if (x.kind !== "http") return "";
  const q = (s) => `'${String(s).replace(/'/g, "'\\''")}'`;
  const h = Object.entries(x.requestHeaders)
    .map(([k, v]) => ` -H ${q(`${k}: ${v}`)}`)
    .join("");
  return `curl -X ${x.method} ${q(x.url)}${h}${x.requestBody ? ` --data ${q(x.requestBody)}` : ""}`;
}

function showExchange(i, tr) {
  for (const r of $("wire").tBodies[0].rows) r.classList.remove("selected");
  tr.classList.add("selected");
  const x = state.wire[i];
  const head = (h) =>
    Object.entries(h)
      .map(([k, v]) => `${k}: ${v}`)
      .join("\n");
  $("exchange").textContent = [
    ...(x.origin ? [x.origin] : []),
    `${x.method} ${x.url}`,
    head(x.requestHeaders),
    "",
    x.requestBody,
    "",
    x.ms === undefined ? `→ ${x.status}` : `→ ${x.status} (${x.ms} ms)`,
    head(x.responseHeaders),
    "",
    x.responseBody,
    "",
    curlOf(x),
  ].join("\n");
}

window.addEventListener("DOMContentLoaded", () => {
  $("connect-form").addEventListener("submit", connect);
  $("chat-form").addEventListener("submit", send);
  $("stream").addEventListener("click", () => void stream());
  $("cancel").addEventListener("click", () => void cancel());
  $("verify-form").addEventListener("submit", (e) => void verify(e));
  $("subscribe").addEventListener("click", () => void subscribe());
  $("get-task").addEventListener("click", () => void getTask());
  $("list-tasks").addEventListener("click", () => void listTasks());
  $("record-form").addEventListener("submit", (e) => void saveRecording(e));
  $("judge-form").addEventListener("submit", (e) => void judge(e));
  $("refresh-wire").addEventListener("click", () => void refreshWire());
  if ($("url").value) $("connect").click();
});
