// Regenerates test/fixtures/protojson/expected.json from cases.json with Google's ProtoJSON runtime
// (Debian python3-protobuf) as the independent oracle. Run by `make oracle-corpus`; the tests only
// read the committed expected file, so Python is not needed to run them.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileProto } from "../../codegen/proto.js";
import { projectRoot, upstreamDir } from "../../codegen/spec.js";

const python = process.env.ORACLE_PYTHON ?? "/usr/bin/python3";
const fixtures = join(projectRoot, "test", "fixtures", "protojson");

function main(): void {
  if (!existsSync(join(upstreamDir, "v1.0", "a2a.proto")))
    throw new Error(`${upstreamDir}/v1.0/a2a.proto is missing: run \`make spec\` first`);
  try {
    execFileSync(python, ["-c", "import google.protobuf.json_format"], { stdio: "pipe" });
  } catch {
    throw new Error(`${python} cannot import google.protobuf: install it with \`apt-get install -y python3-protobuf\``);
  }
  // A buf image (imports included) is wire-compatible with google.protobuf.FileDescriptorSet.
  const { image } = compileProto(upstreamDir, "v1.0");
  const work = mkdtempSync(join(tmpdir(), "a2a-oracle-"));
  try {
    const descriptor = join(work, "a2a-v1_0.binpb");
    writeFileSync(descriptor, image);
    execFileSync(
      python,
      [join(projectRoot, "test", "oracle", "oracle.py"), descriptor, join(fixtures, "cases.json"), join(fixtures, "expected.json")],
      { stdio: "inherit" },
    );
    // Keep the committed file in the project's formatting, so `make lint` stays green after a regeneration.
    execFileSync(join(projectRoot, "node_modules", ".bin", "prettier"), ["--write", join(fixtures, "expected.json")], { stdio: "ignore" });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
