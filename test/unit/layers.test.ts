// ARCHITECTURE.md "Layers and the direction of imports", checked. The import graph of codegen/,
// generated/ and src/ is derived with the TypeScript compiler API (static imports, export-from,
// dynamic import(), import("…") types, require() in generated .js), relative specifiers resolved
// against the importing file; packages and node: built-ins are not project layers. Each layer
// lists what it may import; an edge outside the list fails with file and specifier, and so does a
// file in a folder that has no rule (a new layer must be added to ARCHITECTURE.md and here).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

interface Edge {
  from: string; // importing file, relative to the root
  spec: string; // the specifier as written
  to: string; // resolved target, relative to the root, `.js` read as `.ts`
  typeOnly: boolean; // erased at compile time (import type, all-type named imports, import("…") types)
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const f = join(dir, n);
    return statSync(f).isDirectory() ? sources(f) : /\.(ts|js)$/.test(n) ? [f] : [];
  });
}

function edgesOf(file: string): Edge[] {
  const from = relative(ROOT, file).split("\\").join("/");
  const sf = ts.createSourceFile(
    file,
    readFileSync(file, "utf8"),
    ts.ScriptTarget.Latest,
    true,
    file.endsWith(".js") ? ts.ScriptKind.JS : ts.ScriptKind.TS,
  );
  const out: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    if (!spec.startsWith(".")) return;
    const to = relative(ROOT, resolve(dirname(file), spec))
      .split("\\")
      .join("/")
      .replace(/\.js$/, ".ts");
    out.push({ from, spec, to, typeOnly });
  };
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const c = n.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : undefined;
      add(n.moduleSpecifier.text, !!c && (c.isTypeOnly || (!c.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly))));
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      add(n.moduleSpecifier.text, n.isTypeOnly);
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      add(n.argument.literal.text, true);
    } else if (ts.isCallExpression(n) && n.arguments[0] && ts.isStringLiteral(n.arguments[0])) {
      const callee = n.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require"))
        add(n.arguments[0].text, false);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** A target a layer may import; `typeOnly`: only erased imports. */
interface Allowed {
  to: string; // folder prefix (ends in "/") or file
  typeOnly?: boolean;
}

// Layer → what it may import besides itself. src/runtime/ is the bottom layer (it imports nothing
// of the project); the layers that may import generated/ may import it too.
const LAYERS: Record<string, Allowed[]> = {
  "codegen/": [{ to: "src/runtime/", typeOnly: true }],
  "generated/v1_0/": [{ to: "src/runtime/" }],
  "generated/v0_3/": [{ to: "src/runtime/" }],
  "src/runtime/": [],
  "src/versioning/": [{ to: "generated/" }, { to: "src/runtime/" }],
  "src/transport/": [{ to: "src/versioning/" }, { to: "src/runtime/" }, { to: "generated/v1_0/", typeOnly: true }],
  "src/push/": [{ to: "src/versioning/" }, { to: "src/runtime/" }, { to: "generated/v1_0/" }],
  "src/security/": [{ to: "src/versioning/" }, { to: "src/transport/" }, { to: "src/runtime/" }, { to: "generated/v1_0/" }],
  // src/server by job (ARCHITECTURE.md): each folder imports only the folders below it, and the
  // top (index.ts, plugin.ts: what users import) composes them.
  "src/server/": [
    { to: "src/versioning/" },
    { to: "src/transport/" },
    { to: "src/push/" },
    { to: "src/security/" },
    { to: "src/runtime/" },
    { to: "generated/v1_0/" },
  ],
  "src/server/store/": [{ to: "src/push/" }, { to: "src/versioning/" }, { to: "src/runtime/" }, { to: "generated/v1_0/" }],
  "src/server/engine/": [
    { to: "src/server/store/" },
    { to: "src/push/" },
    { to: "src/transport/" },
    { to: "src/versioning/" },
    { to: "src/runtime/" },
    { to: "generated/v1_0/" },
  ],
  "src/server/replicas/": [
    { to: "src/server/engine/" },
    { to: "src/server/store/" },
    { to: "src/versioning/" },
    { to: "src/runtime/" },
    { to: "generated/v1_0/" },
  ],
  "src/server/front/": [
    { to: "src/server/engine/" },
    { to: "src/security/" },
    { to: "src/transport/" },
    { to: "src/versioning/" },
    { to: "src/runtime/" },
    { to: "generated/v1_0/" },
  ],
  "src/server/adapters/": [
    { to: "src/server/front/" },
    { to: "src/server/engine/" },
    { to: "src/transport/" },
    { to: "src/versioning/" },
    { to: "src/runtime/" },
    { to: "generated/v1_0/" },
  ],
  "src/server/fixture/": [{ to: "src/server/engine/" }, { to: "src/runtime/" }, { to: "generated/v1_0/" }],
  "src/client/": [{ to: "src/versioning/" }, { to: "src/transport/" }, { to: "src/runtime/" }, { to: "generated/v1_0/" }],
  "src/compliance/": [
    { to: "generated/v1_0/validators.ts" },
    { to: "generated/v0_3/validators.ts" },
    { to: "generated/v0_3/rest-validators.ts" },
    // The protobuf-es schemas and service descriptors: gRPC cases are sent and read as binary protobuf.
    { to: "generated/v1_0/a2a_pb.ts" },
    { to: "generated/v0_3/a2a_pb.ts" },
    // ACTS assertions read the decoded 1.0 object as A2A ProtoJSON spells it (always-emitted fields).
    { to: "generated/v1_0/protojson-overrides.ts" },
    // Which fields the 1.0 proto marks REQUIRED: a decoded gRPC answer's empty scalar that is not
    // REQUIRED reads as absent (binary protobuf cannot tell unset from empty).
    { to: "generated/v1_0/google/api/field_behavior_pb.ts" },
    { to: "src/transport/" },
    { to: "src/runtime/" },
  ],
  "src/gateway/": [
    // The turn engine both runtimes use: the handler interface the gateway implements, the task
    // book-keeping (tasks.ts), a turn carried out (execute.ts), the coordinator seam of replicas.
    { to: "src/server/engine/" },
    // What a gateway is built from, as a server is: buildServer and its fastify limits, the
    // TaskStore (and its in-memory default), byte limits measured alike.
    { to: "src/server/index.ts" },
    { to: "src/server/plugin.ts" },
    { to: "src/server/front/http-limits.ts" },
    { to: "src/server/store/store.ts" },
    { to: "src/server/store/task-size.ts" },
    { to: "src/client/" },
    { to: "src/versioning/" },
    { to: "src/runtime/" },
    { to: "generated/v1_0/" },
  ],
  // The inspector's local API: the client (and its wire) for everything it does with an agent, the
  // suite, its reports and the recorder for Judge and Record, the card's versions, losses and signatures.
  "src/inspector/": [
    { to: "src/client/" },
    { to: "src/compliance/" },
    { to: "src/versioning/" },
    { to: "src/security/" },
    { to: "src/runtime/" },
    { to: "generated/v1_0/" },
  ],
  "src/cli/": [{ to: "" }],
};

// Edges that break the rules above today. Each names why; the test fails once one is no longer
// used, so the list only shrinks.
const EXCEPTIONS: { from: string; to: string; why: string }[] = [
  // Documented in ARCHITECTURE.md (issue 19): 0.3 driver results converted with the 0.3 translators.
  { from: "src/compliance/client/results.ts", to: "src/versioning/codec.ts", why: "0.3 driver results are converted to 1.0" },
  { from: "src/compliance/client/results.ts", to: "generated/v1_0/index.ts", why: "the 1.0 messages those results become" },
  { from: "src/compliance/message.ts", to: "generated/v1_0/index.ts", why: "type of the run's parts (type-only)" },
  // Issue 26: scenarios are projected onto each (version, binding) through the codecs, and the wire
  // rules take each error's code, status and reason from the one error table.
  { from: "src/compliance/projection.ts", to: "src/versioning/codec.ts", why: "scenario steps encoded and answers decoded by the codecs" },
  { from: "src/compliance/wire-rules.ts", to: "src/versioning/codec.ts", why: "each operation's 1.0 response type" },
  { from: "src/compliance/wire-rules.ts", to: "src/versioning/errors.ts", why: "each error's representation per binding" },
  // ACTS on 0.3 interfaces: a 0.3 card is read through the card translator, a gRPC request's
  // translation losses decide a skip, which names its loss register row.
  { from: "src/compliance/acts/execute.ts", to: "src/versioning/card.ts", why: "get_agent_card on 0.3: the 1.0 view of the 0.3 card" },
  { from: "src/compliance/acts/execute.ts", to: "src/versioning/grpc.ts", why: "the losses of a request translated for 0.3 gRPC" },
  { from: "src/compliance/acts/run.ts", to: "src/versioning/card.ts", why: "the preconditions of a 0.3 run read the 1.0 view of its card" },
  { from: "src/compliance/acts/run.ts", to: "src/versioning/loss.ts", why: "the loss register row a 0.3 skip names" },
  { from: "src/compliance/record-abstract.ts", to: "src/versioning/codec.ts", why: "recorded requests and answers read as 1.0 messages" },
  // Client scenarios: what the fixture plays is encoded, and what the client sent decoded, by the
  // server side of the codecs (src/transport/server.ts and, for gRPC, src/versioning/grpc.ts).
  { from: "src/compliance/client/scenarios.ts", to: "src/versioning/codec.ts", why: "client-scenario answers from their 1.0 view" },
  { from: "src/compliance/client/scenarios.ts", to: "src/versioning/errors.ts", why: "client-scenario errors per binding" },
  { from: "src/compliance/client/scenarios.ts", to: "src/versioning/grpc.ts", why: "client-scenario answers on gRPC" },
  { from: "src/compliance/client/fixture-server.ts", to: "src/versioning/codec.ts", why: "a client's request decoded to its 1.0 view" },
  { from: "src/compliance/client/fixture-server.ts", to: "src/versioning/grpc.ts", why: "a client's gRPC request decoded to its 1.0 view" },
];

/** The most specific layer holding `path` (src/server/engine/ before src/server/). */
function layerOf(path: string): string | undefined {
  return Object.keys(LAYERS)
    .filter((l) => path.startsWith(l))
    .sort((a, b) => b.length - a.length)[0];
}

const within = (to: string, prefix: string) => (prefix.endsWith("/") || prefix === "" ? to.startsWith(prefix) : to === prefix);

describe("import directions of ARCHITECTURE.md", () => {
  const files = ["codegen", "generated", "src"].flatMap((d) => sources(join(ROOT, d)));
  const edges = files.flatMap(edgesOf);

  it("every source file belongs to a layer with a rule", () => {
    const orphans = files.map((f) => relative(ROOT, f).split("\\").join("/")).filter((f) => !layerOf(f));
    expect(files.length).toBeGreaterThan(100);
    expect(orphans).toEqual([]);
  });

  it("every import goes in an allowed direction", () => {
    const used = new Set<number>();
    const bad: string[] = [];
    for (const e of edges) {
      const layer = layerOf(e.from)!;
      if (e.to.startsWith(layer)) continue;
      if (LAYERS[layer]?.some((a) => within(e.to, a.to) && (!a.typeOnly || e.typeOnly))) continue;
      const x = EXCEPTIONS.findIndex((x) => x.from === e.from && x.to === e.to);
      if (x >= 0) {
        used.add(x);
        continue;
      }
      bad.push(`${e.from} imports "${e.spec}"${e.typeOnly ? " (types)" : ""}`);
    }
    expect(bad).toEqual([]);
    expect(
      EXCEPTIONS.filter((_, i) => !used.has(i)).map((x) => `${x.from} -> ${x.to} is no longer imported: remove the exception`),
    ).toEqual([]);
  });

  it("src/gateway composes the server's parts: none of its classes extends a server class (issue 16)", () => {
    const inherits: string[] = [];
    for (const f of files.filter((f) => relative(ROOT, f).split("\\").join("/").startsWith("src/gateway/"))) {
      const sf = ts.createSourceFile(f, readFileSync(f, "utf8"), ts.ScriptTarget.Latest, true);
      // Names this file imports from src/server.
      const fromServer = new Set<string>();
      for (const st of sf.statements) {
        if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
        const to = relative(ROOT, resolve(dirname(f), st.moduleSpecifier.text))
          .split("\\")
          .join("/");
        if (!to.startsWith("src/server/")) continue;
        const named = st.importClause?.namedBindings;
        if (named && ts.isNamedImports(named)) for (const el of named.elements) fromServer.add(el.name.text);
        if (named && ts.isNamespaceImport(named)) fromServer.add(named.name.text);
        if (st.importClause?.name) fromServer.add(st.importClause.name.text);
      }
      const visit = (n: ts.Node): void => {
        if (ts.isClassLike(n))
          for (const h of n.heritageClauses ?? [])
            if (h.token === ts.SyntaxKind.ExtendsKeyword)
              for (const t of h.types) {
                const base = t.expression.getText(sf).split(".")[0]!;
                if (fromServer.has(base))
                  inherits.push(`${relative(ROOT, f)}: ${n.name?.text ?? "class"} extends ${t.expression.getText(sf)}`);
              }
        ts.forEachChild(n, visit);
      };
      visit(sf);
    }
    expect(inherits).toEqual([]);
  });

  it("finds the edges it is meant to judge", () => {
    // The parser sees each kind of import: a value import, a type-only import, export-from.
    const has = (from: string, to: string, typeOnly: boolean) =>
      edges.some((e) => e.from === from && e.to === to && e.typeOnly === typeOnly);
    expect(has("src/server/front/front.ts", "src/transport/server.ts", false)).toBe(true);
    expect(has("codegen/methods.ts", "src/runtime/methods.ts", true)).toBe(true);
    expect(has("generated/v1_0/index.ts", "generated/v1_0/a2a_pb.ts", false)).toBe(true);
  });
});
