// Compiles an upstream a2a.proto with buf (npm @bufbuild/buf, local modules only: nothing is
// fetched) into a descriptor image, and runs protoc-gen-es over that image (in process).
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, fromBinary, createFileRegistry, type FileRegistry } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
// The plugin `buf generate` runs as protoc-gen-es, imported (the package has no exports map).
import { protocGenEs } from "@bufbuild/protoc-gen-es/dist/cjs/src/protoc-gen-es-plugin.js";
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

/**
 * Runs protoc-gen-es over the image, in this process: the CodeGeneratorRequest `buf generate` would
 * send it (every file of the image but the well-known types, as buf's include_imports does), without
 * buf's and the plugin's processes (about 7 s of a 10 s generation on a loaded 2-core machine).
 * Returns generated files keyed by relative path.
 */
export function generateEs(image: Uint8Array): Map<string, string> {
  const set = fromBinary(FileDescriptorSetSchema, image);
  // buf's image adds its own field (8042, ImageFileExtension) to every file; `buf generate` sends
  // plain FileDescriptorProtos, so drop it as buf does (it would be embedded in the descriptors).
  for (const file of set.file) delete file.$unknown;
  const response = protocGenEs.run(
    create(CodeGeneratorRequestSchema, {
      protoFile: set.file,
      fileToGenerate: set.file.map((f) => f.name).filter((name) => !name.startsWith("google/protobuf/")),
      parameter: "target=ts,import_extension=js,json_types=true",
    }),
  );
  if (response.error) throw new Error(`protoc-gen-es failed: ${response.error}`);
  return new Map(response.file.map((f) => [f.name, f.content] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
