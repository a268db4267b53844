// Compiles an upstream a2a.proto with buf (npm @bufbuild/buf, local modules only: nothing is
// fetched) into a descriptor image, and runs protoc-gen-es over that image.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fromBinary, createFileRegistry, type FileRegistry } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { projectRoot } from "./spec.js";

const bin = (name: string) => join(projectRoot, "node_modules", ".bin", name);

function run(cmd: string, args: string[], cwd: string): void {
  try {
    execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    throw new Error(`${cmd} ${args.join(" ")} failed: ${err.stderr?.toString() || err.message}`);
  }
}

export interface CompiledProto {
  /** Every file of the image, imports included. */
  registry: FileRegistry;
  /** Image bytes without source info (so no upstream comment text reaches generated code). */
  image: Uint8Array;
}

/**
 * Compiles `<specDir>/<protoDir>/a2a.proto` against `<specDir>/third_party`.
 * The workspace lives in a temp dir so that the spec directory may be read-only.
 */
export function compileProto(specDir: string, protoDir: string): CompiledProto {
  const work = mkdtempSync(join(tmpdir(), "a2a-codegen-"));
  try {
    // buf wants module paths relative to the workspace: copy the inputs in (they are small).
    cpSync(join(specDir, protoDir), join(work, "a2a"), { recursive: true });
    cpSync(join(specDir, "third_party"), join(work, "third_party"), { recursive: true });
    writeFileSync(join(work, "buf.yaml"), "version: v2\nmodules:\n  - path: a2a\n  - path: third_party\n");
    const out = join(work, "image.binpb");
    run(bin("buf"), ["build", "--exclude-source-info", "--path", "a2a/a2a.proto", "-o", out], work);
    const image = readFileSync(out);
    const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, image));
    return { registry, image };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Runs protoc-gen-es over the image; returns generated files keyed by relative path. */
export function generateEs(image: Uint8Array): Map<string, string> {
  const work = mkdtempSync(join(tmpdir(), "a2a-es-"));
  try {
    const input = join(work, "image.binpb");
    writeFileSync(input, image);
    const out = join(work, "out");
    writeFileSync(
      join(work, "buf.gen.yaml"),
      [
        "version: v2",
        "plugins:",
        `  - local: ${bin("protoc-gen-es")}`,
        `    out: ${out}`,
        "    include_imports: true",
        "    opt: [target=ts, import_extension=js, json_types=true]",
        "",
      ].join("\n"),
    );
    run(bin("buf"), ["generate", input, "--template", join(work, "buf.gen.yaml"), "--path", "a2a.proto"], work);
    const files = new Map<string, string>();
    const walk = (dir: string) => {
      for (const name of readdirSync(dir).sort()) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else files.set(relative(out, p), readFileSync(p, "utf8"));
      }
    };
    mkdirSync(out, { recursive: true });
    walk(out);
    return files;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
