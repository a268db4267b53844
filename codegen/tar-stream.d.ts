// The part of tar-stream 2.2.0 that codegen/spec.ts uses (the package ships no types).
declare module "tar-stream" {
  import type { Readable, Writable } from "node:stream";

  export interface Headers {
    name: string;
    /** "file", "link", "symlink", "directory" and the other tar entry types. */
    type: string | null;
    size?: number;
  }
  export interface Extract extends Writable {
    on(event: "entry", listener: (headers: Headers, stream: Readable, next: (error?: unknown) => void) => void): this;
    on(event: string, listener: (...args: never[]) => void): this;
  }
  export interface Pack extends Readable {
    entry(headers: { name: string }, buffer: Buffer | string): void;
    finalize(): void;
  }
  export function extract(): Extract;
  export function pack(): Pack;
  const tar: { extract: typeof extract; pack: typeof pack };
  export default tar;
}
