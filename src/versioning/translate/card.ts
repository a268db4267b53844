// AgentCard pieces shared by both 0.3 dialects: which 1.0 interfaces a 0.3 reader may see (L1, L2),
// the card-level protocolVersion (L18), and the 0.3 main + additional interfaces as a 1.0 list.
import type * as v1_0 from "../../../generated/v1_0/index.js";
import type { LossLog } from "../loss.js";
import { FIELDS, reportUnknown, str, untranslatable } from "./common.js";

/** 0.x versions are spoken with the 0.3 dialects; "" (unset) counts as 0.3. */
const LEGACY_VERSION = /^0\.\d+(\.\d+)?$/;

function majorMinor(v: string, path: string): string {
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(v);
  if (!m) throw untranslatable(path, `protocolVersion "${v}" is not Major.Minor[.Patch]`);
  return `${m[1]}.${m[2]}`;
}

/** Filters the 1.0 interfaces to those a 0.3 reader may call (L2) and reports tenants (L1). */
export function legacyInterfaces(ifaces: v1_0.AgentInterfaceJson[], log: LossLog): [v1_0.AgentInterfaceJson, ...v1_0.AgentInterfaceJson[]] {
  const legacy: v1_0.AgentInterfaceJson[] = [];
  ifaces.forEach((i, idx) => {
    const v = i.protocolVersion ?? "";
    if (v === "" || LEGACY_VERSION.test(v)) {
      legacy.push(i);
      if (str(i.tenant)) log.add("L1", `/supportedInterfaces/${idx}/tenant`, "interface tenant has no 0.3 field; dropped");
    } else
      log.add(
        "L2",
        `/supportedInterfaces/${idx}`,
        `interface for protocolVersion "${v}" (${i.protocolBinding} ${i.url}) is not shown to a 0.3 reader`,
      );
  });
  const [first, ...rest] = legacy;
  if (!first)
    throw untranslatable(
      "/supportedInterfaces",
      "no interface with a 0.x protocolVersion: the card offers nothing a 0.3 client can call",
      "L2",
    );
  return [first, ...rest];
}

/** The 0.3 card `protocolVersion` for an interface version: "0.3" → "0.3.0"; "" → "0.3.0". */
export function cardVersionDown(v: string | undefined): string {
  if (!v) return "0.3.0";
  return /^\d+\.\d+$/.test(v) ? `${v}.0` : v;
}

export function cardVersionUp(v: string, log: LossLog): string {
  const mm = majorMinor(v, "/protocolVersion");
  if (mm !== v) log.add("L18", "/protocolVersion", `"${v}" normalised to "${mm}" (1.0 interfaces carry Major.Minor only)`);
  return mm;
}

/** 0.3 main interface first, then the additional ones, without repeats (0.3 SHOULD repeat the main one). */
export function interfacesUp(
  main: { url: string; transport: string },
  additional: { url: string; transport: string }[] | undefined,
  version: string,
): v1_0.AgentInterfaceJson[] {
  const seen = new Set<string>();
  const out: v1_0.AgentInterfaceJson[] = [];
  for (const i of [main, ...(additional ?? [])]) {
    const key = `${i.transport}\u0000${i.url}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ url: i.url, protocolBinding: i.transport, protocolVersion: version });
  }
  return out;
}

/**
 * What a card downgrade starts with in both dialects: unknown fields (L24), the interfaces a 0.3
 * reader may see (L1, L2; `main` is the first) and the signatures, which cannot cover the 0.3 card (L9).
 */
export function cardDownStart(c: v1_0.AgentCardJson, log: LossLog) {
  reportUnknown(c, FIELDS.agentCard, "", log);
  const legacy = legacyInterfaces(c.supportedInterfaces ?? [], log);
  if (c.signatures?.length) log.add("L9", "/signatures", "signatures cover the 1.0 card and cannot verify the translated card; dropped");
  return { legacy, main: legacy[0], caps: c.capabilities ?? {} };
}
