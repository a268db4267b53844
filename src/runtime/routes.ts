// REST route tables over the generated method tables: each operation's google.api.http bindings
// compiled to regular expressions, most specific first (src/transport/rest.ts matches requests
// against them; src/versioning/codec.ts builds each version's table, with its tolerated extras).
import type { HttpBinding, HttpVerb, MethodInfo } from "./methods.js";

export interface RestRoute {
  info: MethodInfo;
  binding: HttpBinding;
  regex: RegExp;
  /** Characters of the template outside variables; more = more specific. */
  literal: number;
}

function literalLength(template: string): number {
  return template.replace(/\{[^}]*\}/g, "").length;
}

/** Compiles the route table of one version; `extra` adds tolerated bindings per operation. */
export function compileRoutes(methods: readonly MethodInfo[], extra: Readonly<Record<string, readonly HttpBinding[]>> = {}): RestRoute[] {
  const routes: RestRoute[] = [];
  for (const info of methods)
    for (const binding of [...info.http, ...(extra[info.operation] ?? [])])
      routes.push({ info, binding, regex: new RegExp(binding.pattern), literal: literalLength(binding.template) });
  return routes.sort((a, b) => b.literal - a.literal || a.binding.pathParams.length - b.binding.pathParams.length);
}

/** A binding for `template` (variables `{name}` or `{name=pattern/*}`), for tolerated extra routes. */
export function bindingFor(verb: HttpVerb, template: string, body: string): HttpBinding {
  const pathParams: string[] = [];
  let pattern = "";
  let last = 0;
  for (const m of template.matchAll(/\{([^}=]+)(?:=([^}]*))?\}/g)) {
    pattern += escapeRegex(template.slice(last, m.index));
    // The name group is not optional: a match has it.
    const name = m[1] ?? "";
    pathParams.push(name);
    const segs = (m[2] ?? "*").split("/").map((s) => (s === "*" ? "[^/]+" : escapeRegex(s)));
    pattern += `(?<${name}>${segs.join("/")})`;
    last = m.index + m[0].length;
  }
  pattern += escapeRegex(template.slice(last));
  return { verb, template, body, pathParams, pattern: `^${pattern}$` };
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
